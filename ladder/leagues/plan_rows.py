"""A league's planned matches written in two flushes, not two per match.

Planning a round robin of 16 bots writes 120 matches and 240 seats at league creation; written one
match at a time (``matches.schedule_match``: the match flushed for its id, then its seats) that
was about a tenth of the central server's CPU per match (issue 50). Here every match of a plan is
added and flushed at once (the ORM inserts them together and reads their ids back in order),
then every seat: the same rows, ids in plan order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlmodel import Session

from kingmaker.games.api import OptionValue
from kingmaker.ladder.errors import InvalidRequestError
from kingmaker.ladder.pairing.schedules.base import PlannedMatch
from kingmaker.ladder.storage.models import Match, MatchSeat


def write_planned(
    session: Session,
    league_id: int,
    game: str,
    options: Mapping[str, OptionValue],
    plan: Sequence[PlannedMatch],
) -> list[Match]:
    """The plan's matches and their seats, scheduled, in plan order (in the caller's transaction)."""
    if any(len(set(planned.bots)) != len(planned.bots) for planned in plan):
        raise InvalidRequestError("a bot may take only one seat in a match")
    matches = [
        Match(
            league_id=league_id,
            ordinal=planned.ordinal,
            game=game,
            players=len(planned.bots),
            seed=planned.seed,
            options=dict(options),
            duplicate_group=planned.duplicate_group,
        )
        for planned in plan
    ]
    session.add_all(matches)
    session.flush()
    seats = []
    for match, planned in zip(matches, plan, strict=True):
        assert match.id is not None
        seats += [
            MatchSeat(match_id=match.id, seat=seat, bot_id=bot_id) for seat, bot_id in enumerate(planned.bots)
        ]
    session.add_all(seats)
    session.flush()
    return matches
