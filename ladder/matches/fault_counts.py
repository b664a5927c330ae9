"""Each bot's faults by reason, kept as matches finish (the ``botfault`` rows), so that a bot page
shows them with one indexed read however many matches the bot has played.

Counted in the transaction that records a finished match (rated or not), for the seats that ended
by their bot's fault: the same seats the fault policy (``faults``) and ``rating.faults`` count.
Void matches count nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import case
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.storage.models import BotFault, MatchSeat


def count_faults(session: Session, match_id: int, seats: Sequence[MatchSeat]) -> None:
    """Add this finished match's faulty seats to their bots' counts (inside the caller's
    transaction; the bots' rows are locked already, so two finishes never race on a count)."""
    faulty = sorted(
        (seat.bot_id, seat.end_reason)
        for seat in seats
        if seat.end_reason is not None and EndReason(seat.end_reason).is_bot_fault
    )
    for bot_id, reason in faulty:
        _add(session, bot_id, reason, match_id)


def _add(session: Session, bot_id: int, reason: str, match_id: int) -> None:
    dialect = session.get_bind().dialect.name
    if dialect not in ("postgresql", "sqlite"):
        row = session.get(BotFault, (bot_id, reason))
        if row is None:
            row = BotFault(bot_id=bot_id, reason=reason, count=0, last_match_id=match_id)
        row.count += 1
        row.last_match_id = max(row.last_match_id, match_id)
        session.add(row)
        session.flush()
        return
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(BotFault).values(bot_id=bot_id, reason=reason, count=1, last_match_id=match_id)
    latest = case(
        (statement.excluded.last_match_id > col(BotFault.last_match_id), statement.excluded.last_match_id),
        else_=col(BotFault.last_match_id),
    )
    session.execute(
        statement.on_conflict_do_update(
            index_elements=["bot_id", "reason"],
            set_={"count": col(BotFault.count) + 1, "last_match_id": latest},
        )
    )


def faults_by_reason(session: Session, bot_id: int) -> list[BotFault]:
    """The bot's fault counts, most frequent first."""
    rows = session.exec(select(BotFault).where(BotFault.bot_id == bot_id)).all()
    return sorted(rows, key=lambda row: (-row.count, row.reason))
