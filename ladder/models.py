"""The ladder's tables (SQLModel). docs/ladder.md describes each one and why it exists.

Conventions: times are aware UTC datetimes (sqlmodel's UTCDateTime converts them); enums are
stored as their string values so the database stays readable from any SQL client; JSON columns
hold plain lists and dicts.
Schema changes go through an alembic revision in ``migrations/versions/`` (a test checks that these
models and the migrated schema agree).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel


def utc_now() -> datetime:
    """Now, as the aware UTC datetime every table stores."""
    return datetime.now(UTC)


class MatchStatus:
    """The life of a match row. Plain strings, so the column reads well in SQL."""

    SCHEDULED = "scheduled"
    """Planned; no bot has been told about it yet (or it was reset after a crash)."""
    RUNNING = "running"
    FINISHED = "finished"
    """Result, seats, ratings and log written in one transaction."""
    VOID = "void"
    """The server failed it (a seat ABORTED or SEAT_UNFILLED): nothing rated, no fault counted;
    in a league a replay row with the same seed and seats was scheduled (up to ``MAX_TRIES``)."""
    CANCELLED = "cancelled"
    """Will never run: one of its bots was suspended or disabled before it started."""
    ALL = (SCHEDULED, RUNNING, FINISHED, VOID, CANCELLED)


class Bot(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    command: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    """The argv list that launches a managed bot; None for a remote bot."""
    working_dir: str | None = None
    token_hash: str = Field(unique=True, index=True)
    """SHA-256 of the bot's token (hex); the token itself is never stored."""
    enabled: bool = True
    suspended_reason: str | None = None
    suspended_stderr: str | None = None
    """The tail of the bot's stderr from the match that triggered the suspension."""
    suspended_at: datetime | None = None
    created_at: datetime = Field(default_factory=utc_now)
    token_rotated_at: datetime = Field(default_factory=utc_now)
    retired_at: datetime | None = None
    """When the bot was removed: kept for its history, never scheduled or admitted again."""


class BotGame(SQLModel, table=True):
    """Which games a bot plays (one row per bot and game)."""

    bot_id: int = Field(foreign_key="bot.id", primary_key=True)
    game: str = Field(primary_key=True)


class League(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    game: str
    format: str
    """round_robin, gauntlet or ladder (continuous matchmaking)."""
    players: int
    """Seats per match."""
    seed: int = Field(sa_type=BigInteger)
    """The league seed every match seed is derived from."""
    duplicate: bool = False
    """Each seed is played once for every rotation of the seats."""
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    settings: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    """Format settings: rounds, challenger, max_matches, time_budget_s."""
    groups_planned: int = 0
    """How many groups (seeds) the schedule has handed out so far."""
    matches_planned: int = 0
    """How many matches the schedule has handed out so far (replays of void matches not counted)."""
    finished: bool = False
    status_reason: str | None = None
    """Why the league ended or stopped, for people (set when it does)."""
    paused: bool = False
    """Paused by an admin: starts no new match (nor resumes at start-up) until resumed."""
    concurrency: int | None = None
    """Matches at once, as its run was started with (a resumed run keeps it); None: the server's."""
    created_at: datetime = Field(default_factory=utc_now)
    started_at: datetime | None = None
    """When its first match started (the time budget of a continuous ladder runs from here)."""


class LeagueBot(SQLModel, table=True):
    """The bots entered in a league, in the order given (that order seeds the schedule), with
    what a continuous ladder's matchmaker reads of each, kept up to date as matches are planned
    and rated (``league_pool``), so that planning reads a few indexed rows, never counts."""

    __table_args__ = (
        Index("ix_leaguebot_league_planned", "league_id", "away", "planned", "bot_id"),
        Index("ix_leaguebot_league_mu", "league_id", "away", "mu", "bot_id"),
        Index("ix_leaguebot_bot", "bot_id"),
    )

    league_id: int = Field(foreign_key="league.id", primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", primary_key=True)
    position: int
    planned: int = 0
    """Matches planned for it in this league (whatever became of them)."""
    mu: float = 25.0
    sigma: float = 25.0 / 3
    """Its rating in the league's game, copied when it changes (a ladder league's, while open)."""
    away: bool = False
    """Not scheduled now: a remote bot that is not connected, or one that left (``left_at``).
    First in the indexes, so that the matchmaker's reads skip these rows however many they are."""
    left_at: datetime | None = None
    """When it left the league (``league leave``); it stays listed for its matches."""


class LeaguePair(SQLModel, table=True):
    """Two bots of a league that have been planned to meet: one row each way (bot, other)."""

    league_id: int = Field(foreign_key="league.id", primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", primary_key=True)
    other_id: int = Field(foreign_key="bot.id", primary_key=True)
    planned: int = 0
    """Matches planned with both in them."""
    last_group: int = 0
    """The plan's group index (seed index) of the last of those."""
    played: int = 0
    """Rated finished matches with both in them."""


class Match(SQLModel, table=True):
    __table_args__ = (Index("ix_match_league_status", "league_id", "status"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int | None = Field(default=None, foreign_key="league.id")
    ordinal: int = 0
    """The match's place in its league's plan; a replay keeps the ordinal of what it replays."""
    game: str
    players: int
    seed: int = Field(sa_type=BigInteger)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    duplicate_group: int | None = None
    """Matches sharing a seed across seat rotations share this number (within the league)."""
    status: str = Field(default=MatchStatus.SCHEDULED, index=True)
    status_reason: str | None = None
    """Why a match was voided, cancelled or left unrated, for people."""
    rated: bool = True
    """False for a finished match in which no seat played (every seat ended by its bot's fault):
    its faults count toward suspension, but nobody's rating moves and nobody is credited a win."""
    replay_of: int | None = Field(default=None, foreign_key="match.id")
    created_at: datetime = Field(default_factory=utc_now)
    started_at: datetime | None = None
    finished_at: datetime | None = None


class MatchSeat(SQLModel, table=True):
    """One seat of a match: written when the match is planned, its result when it ends."""

    __table_args__ = (Index("ix_matchseat_bot_match", "bot_id", "match_id"),)

    match_id: int = Field(foreign_key="match.id", primary_key=True)
    seat: int = Field(primary_key=True)
    bot_id: int = Field(foreign_key="bot.id")
    score: int | None = None
    game_rank: int | None = None
    """The place the game's rules gave this seat."""
    rank: int | None = None
    """The place the ladder rated: the game's, except that bot-faulty seats share last place."""
    strikes: int | None = None
    end_reason: str | None = None
    """An EndReason value (kingmaker.ladder.outcomes)."""
    detail: str | None = None
    """A human sentence about how the seat ended."""
    stderr_tail: str | None = None


class Rating(SQLModel, table=True):
    """The maintained per-bot-per-game row standings are read from (never aggregated per query)."""

    __table_args__ = (
        UniqueConstraint("bot_id", "game"),
        Index("ix_rating_game_conservative", "game", "conservative"),
    )

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
    updated_at: datetime = Field(default_factory=utc_now)


class RatingHistory(SQLModel, table=True):
    """A bot's rating in a game after each rated match, for plots."""

    __table_args__ = (Index("ix_ratinghistory_game_bot", "game", "bot_id"),)

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id")
    game: str
    match_id: int = Field(foreign_key="match.id")
    matches: int
    """The bot's match count in this game after this match (the x axis of a plot)."""
    mu: float
    sigma: float
    conservative: float
    recorded_at: datetime = Field(default_factory=utc_now)


class MatchLog(SQLModel, table=True):
    """Everything needed to replay and verify a finished match."""

    match_id: int = Field(foreign_key="match.id", primary_key=True)
    game: str
    rules_edition: str
    seed: int = Field(sa_type=BigInteger)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    actions: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    """One dict per joint decision: seat number (as a string) -> serial.action_to_data(action)."""
    digests: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    """Per seat, the serial.digest of each observation that seat was sent, in order."""
    timings: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
