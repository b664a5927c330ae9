"""The fault policy: which bots stop being scheduled, and why.

A seat whose EndReason is a bot fault (``EndReason.is_bot_fault``: timeout, illegal or malformed
replies, protocol errors, crash, disconnect, never connecting) ranks last in its match. A bot with
``FAULT_LIMIT`` (3) or more faulty seats among its last ``FAULT_WINDOW`` (5) finished matches, in
any game, is suspended: it keeps its history and is told why when it connects, its matches that
have not started are cancelled, and no schedule picks it until an admin reinstates it (or a new
version of it passes its checks). Reinstating starts its fault window afresh: only matches
finished after it count, so the faults that suspended it do not suspend it again. The reason names
the count, the match, the fault and its detail; the tail of the bot's stderr from that match is
kept beside it (``bot show``).

Voided matches (a server fault) do not count: the bot's faults there may be the server's doing.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from kingmaker.ladder.bots.bots import withdraw_from_schedule
from kingmaker.ladder.bots.notices import notify_about_bot
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.storage.models import Bot, Match, MatchSeat, MatchStatus, NoticeKind, utc_now

FAULT_WINDOW = 5
FAULT_LIMIT = 3


def recent_faults(session: Session, bot_id: int, since: datetime | None = None) -> tuple[int, int]:
    """(faulty seats, matches looked at) over the bot's last ``FAULT_WINDOW`` finished matches
    (only those finished after ``since``: its faults were forgiven then)."""
    query = (
        select(MatchSeat.end_reason)
        .join(Match)
        .where(MatchSeat.bot_id == bot_id, Match.status == MatchStatus.FINISHED)
    )
    if since is not None:
        query = query.where(col(Match.finished_at) > since)
    reasons = session.exec(
        query.order_by(col(Match.finished_at).desc(), col(Match.id).desc()).limit(FAULT_WINDOW)
    ).all()
    faults = sum(1 for reason in reasons if reason and EndReason(reason).is_bot_fault)
    return faults, len(reasons)


def suspend_if_faulty(session: Session, seat: MatchSeat) -> bool:
    """After a faulty seat is recorded, suspend its bot if it is past the limit; True if so."""
    bot = session.get(Bot, seat.bot_id)
    if bot is None or bot.suspended_reason is not None:
        return False
    faults, window = recent_faults(session, seat.bot_id, bot.faults_forgiven_at)
    if faults < FAULT_LIMIT:
        return False
    bot.suspended_reason = (
        f"suspended after {faults} faults in its last {window} matches; "
        f"the last in match {seat.match_id}: {seat.end_reason}" + (f" ({seat.detail})" if seat.detail else "")
    )
    bot.suspended_stderr = seat.stderr_tail or None
    bot.suspended_at = utc_now()
    session.add(bot)
    notify_about_bot(session, bot, NoticeKind.SUSPENDED, f"{bot.name} was {bot.suspended_reason}")
    withdraw_from_schedule(session, seat.bot_id, f"bot {bot.name} was suspended")
    return True
