"""A finished match's seats, match row and log, written with Core statements built once.

The rows the session holds are given the written values as their committed state
(``set_committed_value``): the ORM's unit of work (tracking each change, then a flush to find and
write them) cost more than the writes (docs/scaling.md). The caller's objects still read what was
written.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from kingmaker.ladder.records import SeatOutcome
from kingmaker.ladder.storage.models import Match, MatchLog, MatchSeat, MatchStatus, utc_now
from kingmaker.ladder.storage.tables import core_table

_seats_table, _match_table = core_table(MatchSeat), core_table(Match)
_SEAT_COLUMNS = ("score", "game_rank", "rank", "strikes", "end_reason", "detail", "stderr_tail", "version")
_SEAT_RESULT = (
    update(_seats_table)
    .where(_seats_table.c.match_id == bindparam("of_match"), _seats_table.c.seat == bindparam("of_seat"))
    .values({name: bindparam(f"new_{name}") for name in _SEAT_COLUMNS})
)
_MATCH_COLUMNS = ("status", "status_reason", "rated", "finished_at")
_MATCH_FINISHED = (
    update(_match_table)
    .where(_match_table.c.id == bindparam("of_match"))
    .values({name: bindparam(f"new_{name}") for name in _MATCH_COLUMNS})
)
_INSERT_LOG = insert(core_table(MatchLog))


def seat_result(seat: MatchSeat, given: SeatOutcome, rank: int | None) -> dict[str, Any]:
    """The seat's row as the result leaves it: set on ``seat`` as written, and as the parameters
    of ``write_seat_results``."""
    values = {
        "score": given.score,
        "game_rank": given.rank,
        "rank": rank,
        "strikes": given.strikes,
        "end_reason": given.end_reason.value,
        "detail": given.detail,
        "stderr_tail": given.stderr_tail or None,
        "version": given.version,
    }
    for name, value in values.items():
        set_committed_value(seat, name, value)
    return {"of_match": seat.match_id, "of_seat": seat.seat} | {f"new_{k}": v for k, v in values.items()}


def mark_finished(session: Session, match: Match, rated: bool, status_reason: str | None) -> None:
    values = {
        "status": MatchStatus.FINISHED,
        "status_reason": status_reason,
        "rated": rated,
        "finished_at": utc_now(),
    }
    for name, value in values.items():
        set_committed_value(match, name, value)
    params = {"of_match": match.id} | {f"new_{name}": value for name, value in values.items()}
    session.connection().execute(_MATCH_FINISHED, params)


def write_seat_results(session: Session, rows: list[dict[str, Any]]) -> None:
    """The seats' results, each as ``seat_result`` gave it, in one executemany."""
    session.connection().execute(_SEAT_RESULT, rows)


def insert_log(session: Session, log: dict[str, Any]) -> None:
    session.connection().execute(_INSERT_LOG, log)
