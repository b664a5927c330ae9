"""What each page shows, as plain JSON-ready data: the HTML pages and the JSON API render the same
dicts. Every read is one short read transaction and every list is bounded. A bot's page is in
``bot_page.py``, the rows of match lists in ``match_rows.py``.

Nothing secret is read: no token hash, no bot command or folder, no stderr (``stderr_tail``,
``suspended_stderr``); a match that has not finished shows its seats, never its state, and a
match's seed shows only when ``ladder.secrecy`` says so.
"""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import and_, func
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from kingmaker.games.registry import UnknownGameError, game_names, get_game
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.secrecy import secrets_verdict
from kingmaker.ladder.ratings.standings import ladder_size, standings
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import (
    Bot,
    League,
    LeagueBot,
    LeaguePair,
    Match,
    MatchSeat,
    MatchStatus,
)
from kingmaker.server.services.host_paths import neutral
from kingmaker.server.web.match_rows import match_rows

PAGE_SIZE = 50
"""Rows per page of standings and match lists."""
MAX_PAGE = 100_000


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
                # None (a dash on the page) before the first match: there is no average yet.
                "win_rate": round(row.wins / row.matches, 3) if row.matches else None,
                "average_rank": round(row.average_rank, 2) if row.matches else None,
                "faults": row.faults,
                "active": row.active,
            }
            for row in rows
        ],
    }


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
        playing = session.exec(
            select(Match.id)
            .where(Match.league_id == league.id, Match.status == MatchStatus.RUNNING)
            .order_by(col(Match.id))
            .limit(PAGE_SIZE)
        ).all()
        in_play = match_rows(session, [match_id or 0 for match_id in playing])
        page_ids = session.exec(
            select(Match.id)
            .where(Match.league_id == league.id)
            .order_by(col(Match.id).desc())
            .offset((page - 1) * PAGE_SIZE)
            .limit(PAGE_SIZE + 1)
        ).all()
        matches = match_rows(session, [match_id or 0 for match_id in page_ids])
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
            "status_reason": league.status_reason and neutral(league.status_reason),
        }
    progress = dict.fromkeys(MatchStatus.ALL, 0) | counts
    names = [entrant_name for _, entrant_name in entrants]
    ids = [bot_id or 0 for bot_id, _ in entrants]
    return info | {
        "progress": progress,
        "done": progress[MatchStatus.FINISHED] + progress[MatchStatus.VOID] + progress[MatchStatus.CANCELLED],
        "planned": sum(progress.values()),
        "bots": names,
        "crosstable": [[None if a == b else table.get((a, b), 0) for b in ids] for a in ids],
        "in_play": in_play,
        "matches": matches[:PAGE_SIZE],
        "meetings": [[None if a == b else met.get((a, b), 0) for b in ids] for a in ids],
        "page": page,
        "more": len(matches) > PAGE_SIZE,
    }


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
    """A match: its seats and results, its seed once ``secrecy`` allows (``secrets`` says whether
    it does, and why not); the replay comes separately (``replay.py``)."""
    verdict = secrets_verdict(db, match_id)
    with db.read() as session:
        match = session.get(Match, match_id)
        if match is None:
            raise NotFoundError(f"no match {match_id}")
        [row] = match_rows(session, [match_id])
        options, seed, game = dict(match.options), match.seed, match.game
    return row | {
        "seed": seed if verdict.shown else None,
        "options": options,
        "title": get_game(game).spec.title if game in game_names() else game,
        "secrets": {"shown": verdict.shown, "reason": verdict.reason or None},
    }


def league_names(db: Database, limit: int = PAGE_SIZE) -> list[dict[str, Any]]:
    with db.read() as session:
        rows = session.exec(select(League).order_by(col(League.id).desc()).limit(limit)).all()
        return [{"league": row.name, "game": row.game, "finished": row.finished} for row in rows]
