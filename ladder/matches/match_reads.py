"""A match as stored, read back: its ticket, its seats with their results, its log.

Plain values (``SeatRecord``, ``MatchLogRecord``) so that callers never hold a session's rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kingmaker.games.api import OptionValue
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.compact_logs import unpack_actions, unpack_digests, unpack_timings
from kingmaker.ladder.matches.matches import match_row, seat_rows, ticket
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import MatchTicket
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import MatchLog, MatchSeat


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    bot_id: int
    score: int | None
    game_rank: int | None
    rank: int | None
    strikes: int | None
    end_reason: EndReason | None
    detail: str | None
    stderr_tail: str | None
    version: int | None = None


@dataclass(frozen=True)
class MatchLogRecord:
    """What a replay needs: ``serial.action_from_data(spec, data)`` decodes each action."""

    match_id: int
    game: str
    rules_edition: str
    seed: int
    options: dict[str, OptionValue]
    actions: list[dict[str, Any]]
    digests: list[list[str]]
    timings: dict[str, Any]


def get_match(db: Database, match_id: int) -> MatchTicket:
    with db.read() as session:
        return ticket(session, match_row(session, match_id))


def match_seats(db: Database, match_id: int) -> list[SeatRecord]:
    """The seats of a match with whatever results are recorded (none before it finishes)."""
    with db.read() as session:
        match_row(session, match_id)
        return [seat_record(row) for row in seat_rows(session, match_id)]


def seat_record(row: MatchSeat) -> SeatRecord:
    """A seat row as a plain value."""
    return SeatRecord(
        seat=row.seat,
        bot_id=row.bot_id,
        score=row.score,
        game_rank=row.game_rank,
        rank=row.rank,
        strikes=row.strikes,
        end_reason=EndReason(row.end_reason) if row.end_reason else None,
        detail=row.detail,
        stderr_tail=row.stderr_tail,
        version=row.version,
    )


def match_log(db: Database, match_id: int) -> MatchLogRecord:
    with db.read() as session:
        log = session.get(MatchLog, match_id)
        if log is None:
            raise NotFoundError(f"no log for match {match_id} (it has not finished)")
        return MatchLogRecord(
            match_id=log.match_id,
            game=log.game,
            rules_edition=log.rules_edition,
            seed=log.seed,
            options=dict(log.options),
            actions=unpack_actions(log.game, log.actions),
            digests=unpack_digests(log.digests),
            timings=unpack_timings(log.timings),
        )
