"""What each page shows, as plain JSON-ready data: the HTML pages and the JSON API render the same
dicts. Every read is one short read transaction and every list is bounded.

Nothing secret is read: no token hash, no bot command or folder, no stderr (``stderr_tail``,
``suspended_stderr``), and a match that has not finished shows its seats, never its state.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from kingmaker.games.registry import UnknownGameError, game_names, get_game
from kingmaker.ladder.db import Database
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.history import MatchSummary, list_matches, match_summary
from kingmaker.ladder.models import (
    Bot,
    League,
    LeagueBot,
    LeaguePair,
    Match,
    MatchSeat,
    MatchStatus,
    Rating,
    RatingHistory,
)
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.standings import ladder_size, standings

PAGE_SIZE = 50
"""Rows per page of standings and match lists."""
MAX_PAGE = 100_000
HISTORY_POINTS = 500
"""At most this many rating-history points per game on a bot page (the latest)."""


def games() -> list[dict[str, Any]]:
    return [{"name": name, "title": get_game(name).spec.title} for name in game_names()]


def check_game(game: str) -> str:
    try:
        get_game(game)
    except UnknownGameError as error:
        raise NotFoundError(str(error)) from None
    return game


def standings_page(db: Database, game: str, page: int) -> dict[str, Any]:
    """One page of the game's ladder (``page`` from 1)."""
    check_game(game)
    total = ladder_size(db, game)
    pages = max(1, math.ceil(total / PAGE_SIZE))
    rows = standings(db, game, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
    return {
        "game": game,
        "title": get_game(game).spec.title,
        "page": page,
        "pages": pages,
        "total": total,
        "rows": [
            {
                "position": row.position,
                "bot": row.bot,
                "mu": round(row.mu, 2),
                "sigma": round(row.sigma, 2),
                "conservative": round(row.conservative, 2),
                "matches": row.matches,
                "wins": row.wins,
                "win_rate": round(row.wins / row.matches, 3) if row.matches else 0.0,
                "average_rank": round(row.average_rank, 2),
                "faults": row.faults,
                "active": row.active,
            }
            for row in rows
        ],
    }


def bot_page(db: Database, name: str, page: int = 1) -> dict[str, Any]:
    """A bot: its status, results and rating history per game, recent matches, faults by reason."""
    with db.read() as session:
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None or bot.id is None:
            raise NotFoundError(f"no bot named {name!r}")
        ratings = session.exec(select(Rating).where(Rating.bot_id == bot.id).order_by(col(Rating.game))).all()
        history = {row.game: _history(session, bot.id, row.game) for row in ratings}
        faults = session.exec(
            select(MatchSeat.end_reason, func.count())
            .where(MatchSeat.bot_id == bot.id, col(MatchSeat.end_reason).is_not(None))
            .group_by(col(MatchSeat.end_reason))
        ).all()
        match_ids = session.exec(
            select(MatchSeat.match_id)
            .where(MatchSeat.bot_id == bot.id)
            .order_by(col(MatchSeat.match_id).desc())
            .offset((page - 1) * PAGE_SIZE)
            .limit(PAGE_SIZE + 1)
        ).all()
        status = (
            "retired"
            if bot.retired_at
            else "suspended"
            if bot.suspended_reason
            else ("active" if bot.enabled else "disabled")
        )
        suspended_reason = bot.suspended_reason
        remote = bot.command is None
    recent = [_match_row(match_summary(db, match_id), name) for match_id in match_ids[:PAGE_SIZE]]
    return {
        "bot": name,
        "status": status,
        "suspended_reason": suspended_reason,
        "kind": "remote" if remote else "managed",
        "results": [
            {
                "game": row.game,
                "mu": round(row.mu, 2),
                "sigma": round(row.sigma, 2),
                "conservative": round(row.conservative, 2),
                "matches": row.matches,
                "wins": row.wins,
                "win_rate": round(row.wins / row.matches, 3) if row.matches else 0.0,
                "average_rank": round(row.rank_sum / row.matches, 2) if row.matches else 0.0,
                "faults": row.faults,
            }
            for row in ratings
        ],
        "history": history,
        "faults": sorted(
            ({"reason": reason, "count": count} for reason, count in faults if _is_fault(reason)),
            key=lambda entry: -entry["count"],
        ),
        "matches": recent,
        "page": page,
        "more": len(match_ids) > PAGE_SIZE,
    }


def _is_fault(reason: str | None) -> bool:
    try:
        return reason is not None and EndReason(reason).is_bot_fault
    except ValueError:
        return False


def _history(session: Session, bot_id: int, game: str) -> list[dict[str, Any]]:
    rows = session.exec(
        select(RatingHistory)
        .where(RatingHistory.game == game, RatingHistory.bot_id == bot_id)
        .order_by(col(RatingHistory.matches).desc())
        .limit(HISTORY_POINTS)
    ).all()
    return [
        {
            "matches": row.matches,
            "match_id": row.match_id,
            "mu": round(row.mu, 3),
            "sigma": round(row.sigma, 3),
            "conservative": round(row.conservative, 3),
        }
        for row in reversed(rows)
    ]


def league_page(db: Database, name: str, page: int = 1) -> dict[str, Any]:
    """A league: its settings, progress by status, crosstable and a page of its matches."""
    with db.read() as session:
        league = session.exec(select(League).where(League.name == name)).first()
        if league is None or league.id is None:
            raise NotFoundError(f"no league named {name!r}")
        entrants = session.exec(
            select(Bot.id, Bot.name)
            .join(LeagueBot, col(LeagueBot.bot_id) == col(Bot.id))
            .where(LeagueBot.league_id == league.id)
            .order_by(col(LeagueBot.position))
        ).all()
        counts = dict(
            session.exec(
                select(Match.status, func.count())
                .where(Match.league_id == league.id)
                .group_by(col(Match.status))
            ).all()
        )
        table = _crosstable(session, league.id)
        met = _meetings(session, league.id)
        info = {
            "league": league.name,
            "game": league.game,
            "format": league.format,
            "players": league.players,
            "duplicate": league.duplicate,
            "settings": dict(league.settings),
            "finished": league.finished,
            "paused": league.paused,
            "status_reason": league.status_reason,
        }
        league_id = league.id
    progress = dict.fromkeys(MatchStatus.ALL, 0) | counts
    names = [entrant_name for _, entrant_name in entrants]
    ids = [bot_id or 0 for bot_id, _ in entrants]
    matches = list_matches(db, league=name, limit=PAGE_SIZE + 1, before_id=_before(db, league_id, page))
    return info | {
        "progress": progress,
        "done": progress[MatchStatus.FINISHED] + progress[MatchStatus.VOID] + progress[MatchStatus.CANCELLED],
        "planned": sum(progress.values()),
        "bots": names,
        "crosstable": [[None if a == b else table.get((a, b), 0) for b in ids] for a in ids],
        "meetings": [[None if a == b else met.get((a, b), 0) for b in ids] for a in ids],
        "matches": [_match_row(summary) for summary in matches[:PAGE_SIZE]],
        "page": page,
        "more": len(matches) > PAGE_SIZE,
    }


def _before(db: Database, league_id: int, page: int) -> int | None:
    """The match id that page ``page`` of the league's matches (newest first) starts below."""
    if page <= 1:
        return None
    with db.read() as session:
        ids = session.exec(
            select(Match.id)
            .where(Match.league_id == league_id)
            .order_by(col(Match.id).desc())
            .offset((page - 1) * PAGE_SIZE - 1)
            .limit(1)
        ).all()
    return ids[0] if ids else 0


def _crosstable(session: Session, league_id: int) -> dict[tuple[int, int], int]:
    """(a, b) -> how many finished, rated league matches bot a placed ahead of bot b in."""
    mine, theirs = aliased(MatchSeat), aliased(MatchSeat)
    rows = session.exec(
        select(mine.bot_id, theirs.bot_id, func.count())
        .select_from(mine)
        .join(theirs, and_(col(theirs.match_id) == col(mine.match_id), col(theirs.seat) != col(mine.seat)))
        .join(Match, col(Match.id) == col(mine.match_id))
        .where(
            Match.league_id == league_id,
            Match.status == MatchStatus.FINISHED,
            col(Match.rated).is_(True),
            col(mine.rank) < col(theirs.rank),
        )
        .group_by(col(mine.bot_id), col(theirs.bot_id))
    ).all()
    return {(a, b): count for a, b, count in rows}


def _meetings(session: Session, league_id: int) -> dict[tuple[int, int], int]:
    """(a, b) -> rated matches bots a and b played together in the league (maintained rows)."""
    rows = session.exec(
        select(LeaguePair.bot_id, LeaguePair.other_id, LeaguePair.played).where(
            LeaguePair.league_id == league_id
        )
    ).all()
    return {(a, b): played for a, b, played in rows}


def match_page(db: Database, match_id: int) -> dict[str, Any]:
    """A match: its seats and results; the replay comes separately (``replay.py``)."""
    summary = match_summary(db, match_id)
    return _match_row(summary) | {
        "seed": summary.seed if summary.status == MatchStatus.FINISHED else None,
        "options": summary.options,
        "title": get_game(summary.game).spec.title if summary.game in game_names() else summary.game,
    }


def league_names(db: Database, limit: int = PAGE_SIZE) -> list[dict[str, Any]]:
    with db.read() as session:
        rows = session.exec(select(League).order_by(col(League.id).desc()).limit(limit)).all()
        return [{"league": row.name, "game": row.game, "finished": row.finished} for row in rows]


def _match_row(summary: MatchSummary, viewer: str | None = None) -> dict[str, Any]:
    finished = summary.status == MatchStatus.FINISHED
    seats = [
        {
            "seat": seat.seat,
            "bot": bot,
            # Results only once the match is over: a running match shows who plays, nothing more.
            "score": seat.score if finished else None,
            "rank": seat.rank if finished else None,
            "end_reason": seat.end_reason.value if finished and seat.end_reason else None,
            "detail": seat.detail if finished else None,
            "strikes": seat.strikes if finished else None,
        }
        for seat, bot in zip(summary.seats, summary.bots, strict=True)
    ]
    row = {
        "match_id": summary.match_id,
        "league": summary.league,
        "game": summary.game,
        "status": summary.status,
        "status_reason": summary.status_reason,
        "rated": summary.rated,
        "started_at": _time(summary.started_at),
        "finished_at": _time(summary.finished_at),
        "seats": seats,
    }
    if viewer is not None:
        mine = next((seat for seat in seats if seat["bot"] == viewer), None)
        row["rank"] = mine["rank"] if mine else None
        row["score"] = mine["score"] if mine else None
    return row


def _time(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value is not None else None
