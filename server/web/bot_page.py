"""A bot's page, from maintained rows and bounded, indexed reads, so that it costs the same for a
bot with ten matches as for one with ten thousand: its ``rating`` rows (results per game), its
``botfault`` rows (faults by reason), the latest ``HISTORY_POINTS`` of its rating history per game
(on the ``(game, bot_id, matches)`` index), its newest versions (on ``bot_id``) and one page of its
matches, newest first (on the ``(bot_id, match_id)`` index, or ``(bot_id, end_reason, match_id)``
for the matches of one fault).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select as select_columns  # sqlmodel's select types at most four columns
from sqlmodel import Session, col, select

from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.fault_counts import faults_by_reason
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import (
    Author,
    Bot,
    BotVersion,
    Match,
    MatchSeat,
    MatchStatus,
    Rating,
    RatingHistory,
)
from kingmaker.server.services.host_paths import neutral
from kingmaker.server.services.privacy import public_version_reason
from kingmaker.server.web.match_rows import match_rows

PAGE_SIZE = 50
"""Matches per page."""
HISTORY_POINTS = 500
"""At most this many rating-history points per game (the latest)."""
VERSIONS_SHOWN = 20
"""The newest versions listed (every one is in `kingmaker bot builds`)."""
FAULTS = tuple(reason.value for reason in EndReason if reason.is_bot_fault)


def bot_page(db: Database, name: str, page: int = 1, fault: str | None = None) -> dict[str, Any]:
    """A bot: its status, results and rating history per game, faults by reason, and a page of
    its matches (only those its seat ended by ``fault``, if given)."""
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"fault must be one of {', '.join(FAULTS)}, not {fault[:40]!r}")
    with db.read() as session:
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None or bot.id is None:
            raise NotFoundError(f"no bot named {name!r}")
        ratings = session.exec(select(Rating).where(Rating.bot_id == bot.id).order_by(col(Rating.game))).all()
        history = {row.game: _history(session, bot.id, row.game) for row in ratings}
        faults = faults_by_reason(session, bot.id)
        match_ids = _match_ids(session, bot.id, page, fault)
        matches = match_rows(session, match_ids[:PAGE_SIZE], viewer=name)
        author = session.get(Author, bot.author_id) if bot.author_id is not None else None
        versions = session.exec(
            select(BotVersion)
            .where(BotVersion.bot_id == bot.id)
            .order_by(col(BotVersion.number).desc())
            .limit(VERSIONS_SHOWN)
        ).all()
        status = (
            "retired"
            if bot.retired_at
            else "suspended"
            if bot.suspended_reason
            else ("active" if bot.enabled else "disabled")
        )
        return {
            "bot": name,
            "status": status,
            "suspended_reason": bot.suspended_reason and neutral(bot.suspended_reason),
            "kind": "remote" if bot.command is None else "managed",
            "author": author.name if author is not None else None,
            "active_version": bot.active_version,
            "versions": [version_row(version) for version in versions],
            "results": [result_row(row) for row in ratings],
            "history": history,
            "faults": [
                {"reason": row.reason, "count": row.count, "last_match_id": row.last_match_id}
                for row in faults
            ],
            "fault": fault,
            "matches": matches,
            "page": page,
            "more": len(match_ids) > PAGE_SIZE,
        }


def version_row(version: BotVersion) -> dict[str, Any]:
    """A version as anyone sees it (``privacy``): its number, times, status and a public reason;
    nothing of its manifest, command, hashes, build log or error text."""
    return {
        "number": version.number,
        "status": version.status,
        "created_at": version.created_at.isoformat(timespec="seconds"),
        "built_at": version.built_at.isoformat(timespec="seconds") if version.built_at else None,
        "activated_at": version.activated_at.isoformat(timespec="seconds") if version.activated_at else None,
        "reason": public_version_reason(version.status, version.status_reason),
    }


def result_row(row: Rating) -> dict[str, Any]:
    """A bot's results in one game; averages are None (shown as a dash) before its first match."""
    return {
        "game": row.game,
        "mu": round(row.mu, 2),
        "sigma": round(row.sigma, 2),
        "conservative": round(row.conservative, 2),
        "matches": row.matches,
        "wins": row.wins,
        "win_rate": round(row.wins / row.matches, 3) if row.matches else None,
        "average_rank": round(row.rank_sum / row.matches, 2) if row.matches else None,
        "faults": row.faults,
    }


def _match_ids(session: Session, bot_id: int, page: int, fault: str | None) -> list[int]:
    """The ids of page ``page`` of the bot's matches, newest first, one more to tell if there is more."""
    query = select(MatchSeat.match_id).where(MatchSeat.bot_id == bot_id)
    if fault is not None:
        # Void matches keep their seats' end for the record but count no fault: leave them out.
        query = query.join(Match, col(Match.id) == col(MatchSeat.match_id)).where(
            MatchSeat.end_reason == fault, Match.status == MatchStatus.FINISHED
        )
    ordered = query.order_by(col(MatchSeat.match_id).desc()).offset((page - 1) * PAGE_SIZE)
    return list(session.exec(ordered.limit(PAGE_SIZE + 1)).all())


def _history(session: Session, bot_id: int, game: str) -> list[dict[str, Any]]:
    """Columns, not ORM objects: 500 points cost what 500 tuples cost."""
    rows = session.execute(
        select_columns(
            col(RatingHistory.matches),
            col(RatingHistory.match_id),
            col(RatingHistory.mu),
            col(RatingHistory.sigma),
            col(RatingHistory.conservative),
            col(RatingHistory.version),
        )
        .where(col(RatingHistory.game) == game, col(RatingHistory.bot_id) == bot_id)
        .order_by(col(RatingHistory.matches).desc())
        .limit(HISTORY_POINTS)
    ).all()
    return [
        {
            "matches": matches,
            "match_id": match_id,
            "mu": round(mu, 3),
            "sigma": round(sigma, 3),
            "conservative": round(conservative, 3),
            "version": version,
        }
        for matches, match_id, mu, sigma, conservative, version in reversed(rows)
    ]
