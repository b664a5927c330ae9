"""Playing a stored match (one the ladder scheduled) and writing its result back in one go.

The match row says *running* before any bot hears of it; the result, the ratings and the log are
written in one transaction when it ends, retried until the database takes it (``results``). A
failure of the server or the engine voids the match (nothing is rated) and the ladder schedules a
replay. If the server dies mid-match the row stays
*running*, and resuming the league replays it from scratch. A ladder's match whose remote bot
went away before its seat was taken is cancelled (``Roster.give_up_waiting``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import TypeAlias

from kingmaker.ladder.bots import bots as ladder_bots
from kingmaker.ladder.bots.pinned_versions import pinned_in, pinned_runnables
from kingmaker.ladder.claims import claim_with_runnables
from kingmaker.ladder.leagues.membership import cancel_unbegun
from kingmaker.ladder.matches.matches import finish_match, void_match
from kingmaker.ladder.records import FinishReport, MatchOutcome, MatchTicket, SeatOutcome
from kingmaker.ladder.storage.db import Database
from kingmaker.server.execution.executors import MatchExecutor, as_executor
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.refereeing.report_log import log_actions, log_digests, log_timings, think_timings
from kingmaker.server.refereeing.results import until_stored
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant, Roster, SeatAway

log = logging.getLogger("kingmaker.server")

Store: TypeAlias = Callable[[MatchOutcome], Awaitable[FinishReport]]
"""Stores a finished match's result until it is stored (``ResultWriter.finish``)."""


async def play_ticket(
    db: Database,
    runner: MatchExecutor | Roster,
    ticket: MatchTicket,
    control: TimeControl,
    played: Callable[[], Awaitable[None]] | None = None,
    entrants: list[Entrant] | None = None,
    store: Store | None = None,
) -> FinishReport:
    """Play a match the ladder has already marked running (here or where the executor sends it),
    and record how it ended. ``played`` is awaited once the match is over and before its result
    is stored: the scheduler starts the next match then, so it need not wait for this write.
    ``entrants``: the seats' bots if already read (``claim_with_entrants``). ``store``: how the
    result is written (by default alone, in a transaction of its own)."""
    try:
        if entrants is None:
            entrants = await asyncio.to_thread(entrants_of, db, ticket.bot_ids, ticket.league_id)
        executor = as_executor(runner)
        report = await executor.play(
            ticket.game, entrants, ticket.seed, ticket.options, control, str(ticket.match_id)
        )
    except SeatAway as away:  # gone before the match began: cancelled, as if it had been waiting
        if played is not None:
            await played()
        return await until_stored(cancel_unbegun, db, ticket.match_id, away.bots)
    except Exception as error:  # the engine or the server failed, not a bot: void and replay
        log.exception("match %s failed", ticket.match_id)
        if played is not None:
            await played()
        return await until_stored(void_match, db, ticket.match_id, f"server error: {error}")
    if played is not None:
        await played()
    result = outcome(ticket, report, entrants)
    if store is not None:
        return await store(result)
    return await until_stored(finish_match, db, result)


def outcome(ticket: MatchTicket, report: MatchReport, entrants: list[Entrant] | None = None) -> MatchOutcome:
    """What the ladder stores of a played match; ``entrants`` say which version each seat played."""
    versions = [entrant.version for entrant in entrants] if entrants else [None] * len(ticket.bot_ids)
    seats = tuple(
        SeatOutcome(
            seat=seat.seat,
            bot_id=bot_id,
            score=seat.score,
            rank=report.result.ranks[seat.seat] if report.result is not None else seat.rank,
            strikes=seat.strikes,
            end_reason=seat.end_reason,
            detail=seat.detail,
            stderr_tail=seat.stderr_tail,
            strike_log=tuple(
                {"request": strike.request_id, "kind": strike.kind, "detail": strike.detail}
                for strike in seat.strike_log
            ),
            stderr=seat.stderr,
            stderr_bytes=seat.stderr_bytes,
            exit=seat.exit,
            version=version,
            step_output=seat.step_output,
        )
        for seat, bot_id, version in zip(report.seats, ticket.bot_ids, versions, strict=True)
    )
    packed = report.packed_log  # packed where it was refereed (a worker): stored as it came
    return MatchOutcome(
        match_id=ticket.match_id,
        seats=seats,
        rules_edition=report.edition,
        actions=log_actions(report) if packed is None else [],
        digests=log_digests(report),
        timings=log_timings(report) if packed is None else think_timings(report),
        packed=packed,
    )


def claim_with_entrants(
    db: Database, league_id: int, limit: int, busy: Collection[int], absent: frozenset[int] = frozenset()
) -> list[tuple[MatchTicket, list[Entrant] | None]]:
    """Claim the league's next matches (``leagues.claim_matches``) and read their bots, all of
    them in the claim's own transaction (``claims.claim_with_runnables``): between two matches
    this is all the database work, so it is done in one go. If the bots cannot be run, each
    claimed match gets None, and ``play_ticket`` reads its bots again (and voids the match if it
    still cannot): a claim must not be undone once it has taken matches."""
    tickets, found = claim_with_runnables(db, league_id, limit, busy, absent)
    if isinstance(found, Exception):
        return [(ticket, None) for ticket in tickets]
    return [(ticket, _entrants(ticket.bot_ids, found)) for ticket in tickets]


def entrants_of(
    db: Database,
    bot_ids: tuple[int, ...],
    league_id: int | None = None,
    versions: Mapping[int, int] | None = None,
) -> list[Entrant]:
    """The seats' bots, read in one go (one thread hop and one query per match); in a league
    that pins versions (a competition's finals), the pinned ones; ``versions`` (bot id ->
    number) pins a one-off match's the same way (an owner playing their bot's old version)."""
    if versions:
        with db.read() as session:
            found = pinned_in(session, {"versions": dict(versions)}, bot_ids, None)
    elif league_id is not None:
        found = pinned_runnables(db, bot_ids, league_id)
    else:
        found = ladder_bots.runnables(db, bot_ids)
    return _entrants(bot_ids, found)


def _entrants(bot_ids: tuple[int, ...], found: dict[int, ladder_bots.Runnable]) -> list[Entrant]:
    seated = [(bot_id, found[bot_id]) for bot_id in bot_ids]
    return [
        Entrant(
            bot.name, bot_id, bot.command, bot.working_dir, bot.version if bot.command else None,
            bot.protocol, bot.build_hash,
        )
        for bot_id, bot in seated
    ]  # fmt: skip
