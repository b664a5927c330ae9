"""Claiming a league's next matches and reading how to run their bots, in one transaction.

Between two matches this is all the database work the scheduler does: the league locked, its
next matches chosen and marked *running* (``leagues.claim_in``), and their bots' versions (the
pinned ones where the league pins them: ``pinned_versions``) read with the same connection, in
the same transaction, rather than in a read transaction of their own.
"""

from __future__ import annotations

from collections.abc import Collection

from kingmaker.ladder.bots.bots import Runnable
from kingmaker.ladder.bots.pinned_versions import pinned_in
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.leagues.leagues import claim_in, league_row
from kingmaker.ladder.records import MatchTicket
from kingmaker.ladder.storage.db import Database, retrying


def claim_with_runnables(
    db: Database, league_id: int, limit: int, busy: Collection[int], absent: frozenset[int] = frozenset()
) -> tuple[list[MatchTicket], dict[int, Runnable] | Exception]:
    """``leagues.claim_matches``, and how to run the claimed matches' bots, by bot id; or, if a
    bot cannot be run (a pinned version gone), the error, with the claim kept: a claim that has
    taken matches must not be undone for it (each match is voided when it cannot start)."""
    return retrying(_claim_with_runnables, db, league_id, limit, busy, absent)


def _claim_with_runnables(
    db: Database, league_id: int, limit: int, busy: Collection[int], absent: frozenset[int]
) -> tuple[list[MatchTicket], dict[int, Runnable] | Exception]:
    with db.transaction(flushed=False) as session:  # a restart replays what a crash loses
        league = league_row(session, league_id, lock=True)
        tickets = claim_in(session, league, limit, busy, absent)
        if not tickets:
            return [], {}
        bot_ids = sorted({bot_id for ticket in tickets for bot_id in ticket.bot_ids})
        try:
            return tickets, pinned_in(
                session, league.settings, bot_ids, league_id
            )  # one league: one set of pins
        except NotFoundError as error:  # the claim stands: each match is voided as it cannot start
            return tickets, error
