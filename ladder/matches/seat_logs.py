"""What a bot's owner reads about its seats: stderr during each match, strikes, how it ended.

A row is written only for a seat that left something to read (most seats write nothing on
stderr and make no fault), in the match's result transaction. Each row's stderr is bounded by
the server (its last 64 KiB, ``roster.MATCH_STDERR_BYTES``); per bot, only the newest
``KEEP_STDERR_MATCHES`` rows keep their stderr: older ones keep their strikes and exit, and say
their stderr was dropped (``stderr_bytes`` stays, so the author sees how much there was). So a
bot's logs take at most about 32 MiB however long it plays, plus what it printed at each step
(``step_output``: at most 16 KiB a seat per match, so 8 MiB more, dropped with the rest).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import SeatOutcome
from kingmaker.ladder.step_output import StepOutput, pack_steps, unpack_steps
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot, Match, MatchSeat, SeatLog

KEEP_STDERR_MATCHES = 500
"""Per bot, the newest matches whose stderr is kept."""
DROPPED = "(this match's stderr was dropped: the server keeps it for a bot's newest 500 matches)"


@dataclass(frozen=True)
class SeatLogRecord:
    match_id: int
    seat: int
    bot: str
    version: int | None
    game: str
    finished_at: datetime | None
    end_reason: EndReason | None
    detail: str
    strikes: list[dict[str, Any]]
    exit: str
    stderr: str
    stderr_bytes: int
    steps: list[StepOutput]
    """What the bot printed at each step (``step_output``); empty once its stderr was dropped."""


def seat_log(match_id: int, outcome: SeatOutcome) -> SeatLog:
    return SeatLog(
        match_id=match_id,
        seat=outcome.seat,
        bot_id=outcome.bot_id,
        stderr=outcome.stderr,
        stderr_bytes=outcome.stderr_bytes,
        strikes=list(outcome.strike_log),
        exit=outcome.exit or None,
        steps=pack_steps(outcome.step_output),
    )


def drop_old_stderr(session: Session, bot_id: int) -> None:
    """Keep the stderr of the bot's newest ``KEEP_STDERR_MATCHES`` logged matches only."""
    boundary = session.exec(
        select(SeatLog.match_id)
        .where(SeatLog.bot_id == bot_id)
        .order_by(col(SeatLog.match_id).desc())
        .offset(KEEP_STDERR_MATCHES)
        .limit(1)
    ).first()
    if boundary is None:
        return
    old = session.exec(
        select(SeatLog).where(
            SeatLog.bot_id == bot_id, col(SeatLog.match_id) <= boundary, col(SeatLog.stderr) != DROPPED
        )
    ).all()
    for row in old:
        if row.stderr or row.steps:
            row.stderr = DROPPED
            row.steps = None
            session.add(row)


def bot_logs(db: Database, bot: str, limit: int, before: int | None = None) -> list[SeatLogRecord]:
    """The bot's logs, newest match first, ``limit`` at most, older than match ``before``."""
    with db.read() as session:
        query = _joined().where(Bot.name == bot).order_by(col(SeatLog.match_id).desc()).limit(limit)
        if before is not None:
            query = query.where(col(SeatLog.match_id) < before)
        return [_record(*row) for row in session.exec(query).all()]


def match_logs(db: Database, match_id: int) -> list[SeatLogRecord]:
    """Every logged seat of one match, in seat order (the caller keeps what the viewer may see)."""
    with db.read() as session:
        query = _joined().where(SeatLog.match_id == match_id).order_by(col(SeatLog.seat))
        return [_record(*row) for row in session.exec(query).all()]


def _joined() -> Any:
    same_seat = (col(MatchSeat.match_id) == SeatLog.match_id) & (col(MatchSeat.seat) == SeatLog.seat)
    return (
        select(SeatLog, Bot, Match, MatchSeat)
        .join(Bot, col(Bot.id) == SeatLog.bot_id)
        .join(Match, col(Match.id) == SeatLog.match_id)
        .join(MatchSeat, same_seat)
    )


def _record(log: SeatLog, bot: Bot, match: Match, seat: MatchSeat) -> SeatLogRecord:
    return SeatLogRecord(
        match_id=log.match_id,
        seat=log.seat,
        bot=bot.name,
        version=seat.version,
        game=match.game,
        finished_at=match.finished_at,
        end_reason=EndReason(seat.end_reason) if seat.end_reason else None,
        detail=seat.detail or "",
        strikes=list(log.strikes),
        exit=log.exit or "",
        stderr=log.stderr,
        stderr_bytes=log.stderr_bytes,
        steps=unpack_steps(log.steps),
    )
