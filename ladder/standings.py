"""Standings and rating history: reads of the maintained per-bot-per-game rows.

Nothing here aggregates over matches: the ``rating`` table keeps each bot's counters, updated in
the transaction that records each match, and sorts on its indexed ``conservative`` column.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import col, select

from kingmaker.ladder.db import Database
from kingmaker.ladder.models import Bot, Rating, RatingHistory


@dataclass(frozen=True)
class Standing:
    position: int
    bot_id: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    """mu - 3 sigma: the sort key."""
    matches: int
    wins: int
    average_rank: float
    faults: int
    active: bool
    """Enabled and not suspended."""


@dataclass(frozen=True)
class HistoryPoint:
    matches: int
    """The bot's match count in the game after this match: the x axis."""
    match_id: int
    mu: float
    sigma: float
    conservative: float
    recorded_at: datetime


def standings(db: Database, game: str, limit: int | None = None) -> list[Standing]:
    """The game's ladder, best conservative rating first (ties: higher mu, then name)."""
    with db.transaction() as session:
        query = (
            select(Rating, Bot)
            .join(Bot)
            .where(Rating.game == game)
            .order_by(col(Rating.conservative).desc(), col(Rating.mu).desc(), col(Bot.name))
            .limit(limit)
        )
        rows = session.exec(query).all()
    return [
        Standing(
            position=position,
            bot_id=bot.id or 0,
            bot=bot.name,
            mu=rating.mu,
            sigma=rating.sigma,
            conservative=rating.conservative,
            matches=rating.matches,
            wins=rating.wins,
            average_rank=rating.rank_sum / rating.matches if rating.matches else 0.0,
            faults=rating.faults,
            active=bot.enabled and bot.suspended_reason is None,
        )
        for position, (rating, bot) in enumerate(rows, start=1)
    ]


def rating_history(db: Database, game: str, top: int = 5) -> dict[str, list[HistoryPoint]]:
    """The conservative rating over matches of the ``top`` bots of the standings, for plotting:
    ``{bot name: [point after each of its rated matches, in order]}``, best bot first."""
    leaders = standings(db, game, limit=top)
    history: dict[str, list[HistoryPoint]] = {}
    with db.transaction() as session:
        for leader in leaders:
            rows = session.exec(
                select(RatingHistory)
                .where(RatingHistory.game == game, RatingHistory.bot_id == leader.bot_id)
                .order_by(col(RatingHistory.matches))
            ).all()
            history[leader.bot] = [
                HistoryPoint(row.matches, row.match_id, row.mu, row.sigma, row.conservative, row.recorded_at)
                for row in rows
            ]
    return history
