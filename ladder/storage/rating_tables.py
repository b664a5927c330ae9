"""The rating tables: the ladder's ``rating`` rows and their ``ratinghistory``, and the separate
``peoplerating`` rows of the matches with people (docs/play.md), which share the ladder's
columns; apart from ``models`` (which re-exports them) only to keep each file short."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Index, UniqueConstraint
from sqlmodel import Field, SQLModel


class RatingColumns(SQLModel):
    """A bot's (or a person's) maintained rating in one game, as standings read it."""

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id")
    game: str
    mu: float
    sigma: float
    conservative: float
    """mu - 3 sigma, stored so standings sort on an indexed column."""
    matches: int = 0
    wins: int = 0
    """Matches ranked first (shared first place counts)."""
    rank_sum: int = 0
    """Sum of ladder ranks, so average rank = rank_sum / matches."""
    faults: int = 0
    updated_at: datetime = Field(default_factory=lambda: datetime.now(UTC))


class Rating(RatingColumns, table=True):
    """The maintained per-bot-per-game row standings are read from (never aggregated per query)."""

    __table_args__ = (
        UniqueConstraint("bot_id", "game"),
        Index("ix_rating_game_conservative", "game", "conservative"),
    )


class PeopleRating(RatingColumns, table=True):
    """A seat row's rating in a game from the matches played with people alone (docs/play.md):
    the person's and each bot's, apart from the ladder's ``Rating``, which it never touches."""

    __table_args__ = (
        UniqueConstraint("bot_id", "game"),
        Index("ix_peoplerating_game_conservative", "game", "conservative"),
    )


class RatingHistory(SQLModel, table=True):
    """A bot's rating in a game after each rated match, for plots."""

    __table_args__ = (Index("ix_ratinghistory_game_bot_matches", "game", "bot_id", "matches"),)

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id")
    game: str
    match_id: int = Field(foreign_key="match.id")
    matches: int
    """The bot's match count in this game after this match (the x axis of a plot)."""
    mu: float
    sigma: float
    conservative: float
    recorded_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    version: int | None = None
    """The version that played this match (a change of version marks the plot)."""
