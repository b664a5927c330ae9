"""Standings and rating history: reads of the maintained per-bot-per-game rows.

Nothing here aggregates over matches: the ``rating`` table keeps each bot's counters, updated in
the transaction that records each match, and sorts on its indexed ``conservative`` column.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, exists, func, or_
from sqlalchemy import select as select_columns  # sqlmodel's select types at most four columns
from sqlmodel import Session, col, select

from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.ratings.rating_rows import RatingTable
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot, BotVersion, Rating, RatingHistory

HISTORY_POINTS = 500
"""At most this many points of one bot's history (its latest), as its public page shows."""


ON_THE_LADDER = ~and_(
    col(Bot.active_version).is_(None),
    exists().where(col(BotVersion.bot_id) == col(Bot.id)),
)
"""A bot is on its games' ladders unless it was submitted and no version of it plays yet (none
has passed its build and validation): a remote bot, or one whose version plays, is."""


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
    version: int | None = None
    """The bot's version that played this match: where it changes, a new version started."""


def standings(
    db: Database, game: str, limit: int | None = None, offset: int = 0, table: RatingTable = Rating
) -> list[Standing]:
    """The game's ladder, best conservative rating first (ties: higher mu, then name); a page of
    ``limit`` rows from position ``offset + 1``. Reads columns, not ORM objects: 10,000 bots cost
    what 10,000 tuples cost. ``table``: ``PeopleRating`` for the separate ratings of the matches
    with people (their people among the bots)."""
    query = (
        select_columns(
            col(table.bot_id),
            col(Bot.name),
            col(table.mu),
            col(table.sigma),
            col(table.conservative),
            col(table.matches),
            col(table.wins),
            col(table.rank_sum),
            col(table.faults),
            col(Bot.enabled),
            col(Bot.suspended_reason),
        )
        .join(Bot, col(Bot.id) == col(table.bot_id))
        .where(col(table.game) == game, ON_THE_LADDER)
        .order_by(col(table.conservative).desc(), col(table.mu).desc(), col(Bot.name))
        .offset(offset)
        .limit(limit)
    )
    with db.read() as session:
        rows = session.execute(query).all()
    return [
        Standing(
            position=position,
            bot_id=bot_id,
            bot=name,
            mu=mu,
            sigma=sigma,
            conservative=conservative,
            matches=matches,
            wins=wins,
            average_rank=rank_sum / matches if matches else 0.0,
            faults=faults,
            active=enabled and suspended is None,
        )
        for position, (
            bot_id,
            name,
            mu,
            sigma,
            conservative,
            matches,
            wins,
            rank_sum,
            faults,
            enabled,
            suspended,
        ) in enumerate(rows, start=offset + 1)
    ]


def position_in(session: Session, rating: Rating, name: str) -> int:
    """Where ``rating`` (of the bot ``name``) stands in its game's ladder, 1 the first, in the
    order ``standings`` lists it: one count of the rows ahead on the ``(game, conservative)`` rows;
    0 for a bot not on the ladder (``ON_THE_LADDER``)."""
    listed = select(Bot.id).where(Bot.id == rating.bot_id, ON_THE_LADDER)
    if session.exec(listed).first() is None:
        return 0
    ahead = or_(
        col(Rating.conservative) > rating.conservative,
        and_(col(Rating.conservative) == rating.conservative, col(Rating.mu) > rating.mu),
        and_(
            col(Rating.conservative) == rating.conservative, col(Rating.mu) == rating.mu, col(Bot.name) < name
        ),
    )
    count = (
        select(func.count())
        .select_from(Rating)
        .join(Bot, col(Bot.id) == col(Rating.bot_id))
        .where(col(Rating.game) == rating.game, ahead, ON_THE_LADDER)
    )
    return int(session.exec(count).one()) + 1


def size_in(session: Session, game: str, table: RatingTable = Rating) -> int:
    """How many bots the game's ladder (or ``table``'s ratings) holds, in the caller's transaction."""
    counted = (
        select(func.count())
        .select_from(table)
        .join(Bot, col(Bot.id) == col(table.bot_id))
        .where(col(table.game) == game, ON_THE_LADDER)
    )
    return int(session.exec(counted).one())


def ladder_size(db: Database, game: str, table: RatingTable = Rating) -> int:
    """How many bots the game's ladder (or ``table``'s ratings) holds."""
    with db.read() as session:
        return size_in(session, game, table)


def rating_history(db: Database, game: str, top: int = 5) -> dict[str, list[HistoryPoint]]:
    """The conservative rating over matches of the ``top`` bots of the standings, for plotting:
    ``{bot name: [point after each of its rated matches, in order]}``, best bot first."""
    leaders = standings(db, game, limit=top)
    history: dict[str, list[HistoryPoint]] = {}
    with db.read() as session:
        for leader in leaders:
            rows = session.exec(
                select(RatingHistory)
                .where(RatingHistory.game == game, RatingHistory.bot_id == leader.bot_id)
                .order_by(col(RatingHistory.matches))
            ).all()
            history[leader.bot] = [_point(row) for row in rows]
    return history


def bot_history(db: Database, game: str, bot: str, points: int = HISTORY_POINTS) -> list[HistoryPoint]:
    """One bot's rating in ``game`` after each of its latest ``points`` rated matches, in order
    (on the ``(game, bot_id, matches)`` index); ``NotFoundError`` for an unknown bot."""
    with db.read() as session:
        bot_id = session.exec(select(Bot.id).where(Bot.name == bot)).first()
        if bot_id is None:
            raise NotFoundError(f"no bot named {bot!r}")
        rows = session.exec(
            select(RatingHistory)
            .where(RatingHistory.game == game, RatingHistory.bot_id == bot_id)
            .order_by(col(RatingHistory.matches).desc())
            .limit(points)
        ).all()
        return [_point(row) for row in reversed(rows)]


def _point(row: RatingHistory) -> HistoryPoint:
    return HistoryPoint(
        row.matches, row.match_id, row.mu, row.sigma, row.conservative, row.recorded_at, row.version
    )
