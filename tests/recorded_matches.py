"""Stored matches with the places a test names, recorded through the ladder's own functions (no
game is played: the log is empty), for tests of what reads matches back (listings, filters)."""

from __future__ import annotations

from collections.abc import Sequence

from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database


def recorded(
    db: Database, bots: Sequence[str], places: Sequence[int], versions: Sequence[int | None] = ()
) -> int:
    """A finished Kingdoms match with ``bots`` seated in order, each at its place (1 is first;
    equal places share it), played by ``versions`` (one per seat, or none); its id."""
    ticket = create_match(db, "kingdoms", bots, seed=len(bots))
    mark_running(db, ticket.match_id)
    played = list(versions) or [None] * len(bots)
    seats = tuple(
        SeatOutcome(seat=seat, bot_id=bot_id, score=10 - place, rank=place, version=played[seat])
        for seat, (bot_id, place) in enumerate(zip(ticket.bot_ids, places, strict=True))
    )
    finish_match(db, MatchOutcome(match_id=ticket.match_id, seats=seats, rules_edition="test"))
    return ticket.match_id
