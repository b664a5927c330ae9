"""A league's planned matches written in two statements, not two per match.

Planning a round robin of 16 bots writes 120 matches and 240 seats at league creation; written one
match at a time (``matches.schedule_match``: the match flushed for its id, then its seats) that
was about a tenth of the central server's CPU per match (issue 50). Here every match of a plan is
inserted at once, its ids read back in plan order, then every seat: the same rows. Core inserts,
not ORM objects: building a validated object per row cost more than the insert (a ladder plans
its next group this way inside a claim).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import insert
from sqlmodel import Session

from kingmaker.games.api import OptionValue
from kingmaker.ladder.errors import InvalidRequestError
from kingmaker.ladder.pairing.schedules.base import PlannedMatch
from kingmaker.ladder.storage.models import Match, MatchSeat
from kingmaker.ladder.storage.tables import core_table, run_core

_matches, _seats = core_table(Match), core_table(MatchSeat)
_NEW_MATCHES = insert(_matches).returning(_matches.c.id, sort_by_parameter_order=True)
_NEW_SEATS = insert(_seats)


def write_planned(
    session: Session,
    league_id: int,
    game: str,
    options: Mapping[str, OptionValue],
    plan: Sequence[PlannedMatch],
) -> list[int]:
    """The plan's matches and their seats, scheduled, in plan order (in the caller's transaction);
    the matches' ids in plan order."""
    if any(len(set(planned.bots)) != len(planned.bots) for planned in plan):
        raise InvalidRequestError("a bot may take only one seat in a match")
    if not plan:
        return []
    rows = [
        {
            "league_id": league_id,
            "ordinal": planned.ordinal,
            "game": game,
            "players": len(planned.bots),
            "seed": planned.seed,
            "options": dict(options),
            "duplicate_group": planned.duplicate_group,
        }
        for planned in plan
    ]
    ids = run_core(session, _NEW_MATCHES, rows).scalars().all()
    seats = [
        {"match_id": match_id, "seat": seat, "bot_id": bot_id}
        for match_id, planned in zip(ids, plan, strict=True)
        for seat, bot_id in enumerate(planned.bots)
    ]
    run_core(session, _NEW_SEATS, seats)
    return list(ids)
