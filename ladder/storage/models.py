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

from sqlalchemy import JSON, BigInteger, Column, Index, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel

from kingmaker.ladder.storage.notice_rows import Notice as Notice
from kingmaker.ladder.storage.notice_rows import NoticeKind as NoticeKind
from kingmaker.ladder.storage.rating_tables import PeopleRating as PeopleRating
from kingmaker.ladder.storage.rating_tables import Rating as Rating
from kingmaker.ladder.storage.rating_tables import RatingHistory as RatingHistory
from kingmaker.ladder.storage.status_counts import LeagueStatusCount as LeagueStatusCount


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


class Author(SQLModel, table=True):
    """A person who owns bots: submits their code, runs their matches, reads their logs. Bots
    with no author belong to the admin (every bot registered before authors existed)."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    token_hash: str = Field(unique=True, index=True)
    """SHA-256 of the author's token (hex); the token itself is never stored."""
    enabled: bool = True
    """A disabled author's token is refused; their bots stay, and keep playing."""
    bot_quota: int = 5
    """How many bots (retired ones not counted) the author may own; the admin sets it."""
    builds_at_once: int = 1
    """How many of the author's versions build at once; the next ones wait, queued, in order."""
    submissions_per_hour: int = 20
    """How many submissions the author may make in any hour."""
    stored_bytes: int = Field(default=1024 * 1024 * 1024, sa_type=BigInteger)
    """The most bytes of archives and built folders the author's versions may keep (pruned
    versions keep none)."""
    created_at: datetime = Field(default_factory=utc_now)
    token_rotated_at: datetime = Field(default_factory=utc_now)


class Bot(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    author_id: int | None = Field(default=None, foreign_key="author.id", index=True)
    """Who owns it; None: the admin."""
    active_version: int | None = None
    """The number of the version that plays now (``BotVersion.number``); None for a remote bot,
    or a bot whose first submission has not passed its build and validation yet."""
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
    faults_forgiven_at: datetime | None = None
    """When its suspension was last lifted: the fault window counts only matches finished since."""
    created_at: datetime = Field(default_factory=utc_now)
    token_rotated_at: datetime = Field(default_factory=utc_now)
    retired_at: datetime | None = None
    """When the bot was removed: kept for its history, never scheduled or admitted again."""


class VersionStatus:
    """The life of a version. Plain strings, so the column reads well in SQL."""

    QUEUED = "queued"
    """Stored; waits for one of its author's builds to finish (``Author.builds_at_once``)."""
    BUILDING = "building"
    BUILD_FAILED = "build_failed"
    """Its build failed (the log says why); the previous version goes on playing."""
    VALIDATING = "validating"
    """Built; playing its validation matches against the game's random bot."""
    REJECTED = "rejected"
    """A validation match ended by its fault, or its A/B duel found it weaker: never played."""
    TESTING = "testing"
    """Passed validation; playing its A/B duel against the active version (``submit --ab``)."""
    ACTIVE = "active"
    """The version that plays (one per bot at most)."""
    RETIRED = "retired"
    """Was active; another version replaced it (a rollback may bring it back)."""
    ALL = (QUEUED, BUILDING, BUILD_FAILED, VALIDATING, REJECTED, TESTING, ACTIVE, RETIRED)


class BotVersion(SQLModel, table=True):
    """One build of a bot: a submission the server built and validated, or a command the admin
    registered (``bot add``/``bot edit``). Every version's row is kept (retention prunes only its
    files); matches record which played."""

    __table_args__ = (UniqueConstraint("bot_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    number: int
    """1, 2, ... per bot, in the order submitted."""
    status: str = VersionStatus.BUILDING
    status_reason: str | None = None
    """Why it failed, was rejected or retired, for people."""
    source: str = "command"
    """"submission" (an archive the server built) or "command" (registered by the admin)."""
    archive_hash: str | None = None
    """SHA-256 of the submitted archive: the name of its blob."""
    build_hash: str | None = None
    """SHA-256 of the built folder: how worker processes and Ray nodes find and cache it."""
    command: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    """The argv that starts it: the admin's command, or the manifest's ``run`` (relative to the
    built folder, where it is started)."""
    working_dir: str | None = None
    protocol: str = "grpc"
    """"grpc", or "json-lines" (launched behind the bridge)."""
    manifest: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    """What the build followed: ``kingmaker.toml``, or the layout detected (and how)."""
    build_log: str | None = None
    """The build's output (its end, bounded), shown to the author."""
    validation: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    """One dict per validation match (game, seats, each of its seats' ending, the version's
    stderr when it failed), and for ``submit --ab`` the duel's verdict."""
    submitted_by: int | None = Field(default=None, foreign_key="author.id")
    """The author who submitted it; None: the admin."""
    ab: bool = False
    """Its author asked for an A/B duel against the active version first (``submit --ab``)."""
    created_at: datetime = Field(default_factory=utc_now)
    built_at: datetime | None = None
    activated_at: datetime | None = None
    archive_bytes: int | None = Field(default=None, sa_type=BigInteger)
    """The archive's size, as stored (what it counts toward its author's ``stored_bytes``)."""
    build_bytes: int | None = Field(default=None, sa_type=BigInteger)
    """The built folder's size (its files added up)."""
    pruned_at: datetime | None = None
    """When retention removed its archive and built folder (the row and its history stay)."""


class LadderPolicy(SQLModel, table=True):
    """Per game ladder: what a bot's rating becomes when a new version of it starts to play."""

    game: str = Field(primary_key=True)
    new_version: str = "reset_sigma"
    """"keep" (mu and sigma go on), "reset_sigma" (mu kept, sigma back to the start: the ladder
    learns the new version quickly from where the old one stood) or "reset" (a new bot)."""


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
    __table_args__ = (
        # A league's scheduled matches in plan order (a claim's window), read from the index.
        Index("ix_match_league_status_plan", "league_id", "status", "ordinal", "id"),
        Index("ix_match_game_seed", "game", "seed"),
    )

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
    rated_with_people: bool = False
    """A match with a person that the server rates in the separate "with people" ratings
    (``people_ratings``, ``serve --rate-people``); never on the ladder (``rated`` stays False)."""
    replay_of: int | None = Field(default=None, foreign_key="match.id")
    created_at: datetime = Field(default_factory=utc_now)
    started_at: datetime | None = None
    finished_at: datetime | None = None


class MatchSeat(SQLModel, table=True):
    """One seat of a match: written when the match is planned, its result when it ends."""

    __table_args__ = (
        Index("ix_matchseat_bot_match", "bot_id", "match_id"),
        Index("ix_matchseat_bot_reason_match", "bot_id", "end_reason", "match_id"),
    )

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
    version: int | None = None
    """The bot's version that played (``BotVersion.number``); None for a remote bot and for
    matches played before versions were recorded."""


class MatchLog(SQLModel, table=True):
    """Everything needed to replay and verify a finished match. The actions, digests and timings
    are packed (``compact_logs``): ``matches.match_log`` reads them back."""

    match_id: int = Field(foreign_key="match.id", primary_key=True)
    game: str
    rules_edition: str
    seed: int = Field(sa_type=BigInteger)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    actions: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    """The joint actions (``compact_logs.pack_actions``)."""
    digests: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    """Per seat, the digest of each observation that seat was sent (``compact_logs.pack_digests``)."""
    timings: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    """Figures for people: duration, time charged per decision (``compact_logs.pack_timings``)."""


class SeatLog(SQLModel, table=True):
    """What the owner of a seat's bot may read about it: the bot's stderr during the match
    (bounded) and each strike with its reason and request number. Nobody else sees it."""

    __table_args__ = (Index("ix_seatlog_bot_match", "bot_id", "match_id"),)

    match_id: int = Field(foreign_key="match.id", primary_key=True)
    seat: int = Field(primary_key=True)
    bot_id: int = Field(foreign_key="bot.id")
    stderr: str = ""
    """What the bot wrote on stderr during this match (its end, when longer than the bound)."""
    stderr_bytes: int = 0
    """How much it wrote in all (more than ``stderr`` holds when it was cut)."""
    strikes: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    """``{"request": id, "kind": "late"|"illegal"|"malformed", "detail": sentence}`` per strike."""
    exit: str | None = None
    """How its process ended, when it ended during the match: "exited with code 1", "killed by
    SIGSEGV"."""
    steps: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    """What the bot printed on stderr at each step, bounded (``step_output.pack_steps``)."""


class TrialMatch(SQLModel, table=True):
    """A match a version played before it could play on the ladder: one of its validation
    matches or of its A/B duel (``ladder.matches.trial_matches``). Kept for its owner to read and
    replay; never rated, never counted (no ``match`` row, no seats, no faults)."""

    __table_args__ = (Index("ix_trialmatch_bot_version", "bot_id", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id")
    version: int
    """The version on trial (``BotVersion.number``)."""
    purpose: str
    """"validation" or "duel"."""
    game: str
    rules_edition: str
    seed: int = Field(sa_type=BigInteger)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seats: list[Any] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    """Per seat: ``{"bot", "version", "score", "rank", "end_reason", "detail"}`` (a random bot is
    "random-N", with no version)."""
    actions: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    """As ``MatchLog.actions`` (``compact_logs.pack_actions``)."""
    digests: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    timings: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    played_at: datetime = Field(default_factory=utc_now)


class BotFault(SQLModel, table=True):
    """How many of a bot's seats in finished matches ended by each fault, kept as matches finish,
    so a bot page reads its faults without counting its seats."""

    bot_id: int = Field(foreign_key="bot.id", primary_key=True)
    reason: str = Field(primary_key=True)
    """An EndReason value that is a bot fault."""
    count: int = 0
    last_match_id: int = Field(foreign_key="match.id")
    """The latest finished match in which it ended so."""


class CompetitionPhase:
    """The life of a competition (``competition_phases``). Plain strings, as the column reads."""

    OPEN = "open"
    """Entries play a continuous ladder league; authors submit as they like."""
    CLOSED = "closed"
    """The deadline passed: each entry is frozen at one version; finals not started yet."""
    FINALS = "finals"
    """The finals' rounds are being played (frozen versions only)."""
    FINAL = "final"
    """The winner is published; nothing changes any more."""
    ALL = (OPEN, CLOSED, FINALS, FINAL)


class Competition(SQLModel, table=True):
    """A season with a deadline, finals and a winner (docs/competitions.md)."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    game: str
    players: int
    """Seats per match, in the open ladder and the finals."""
    opens_at: datetime
    closes_at: datetime
    """The deadline: entries freeze at the version they play (or were selected) at this time."""
    finals_at: datetime | None = None
    """When the finals start by themselves (None: at the deadline)."""
    finals: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    """The finals' format and its settings: ``{"format": "ladder", "rounds": 2, "cuts": [4, 2]}``
    or ``{"format": "bracket", "best_of": 3}``."""
    tiers: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    """Its tiers, lowest first (none: one open ladder): ``[{"name": "wood", "boss": "rnd"}, ...]``;
    the top tier's boss may be None (``competition_tiers``)."""
    promote_after: int = 10
    """Matches an entry plays in its tier before it may be promoted above the tier's boss."""
    relegate_after: int = 0
    """An entry last at its table in this many of its tier's matches in a row moves down a tier
    (0: never; ``competition_relegation``)."""
    phase: str = CompetitionPhase.OPEN
    league_id: int | None = Field(default=None, foreign_key="league.id")
    """The continuous ladder league its entries play while it is open."""
    stage: int = 0
    """The finals' current stage (1, 2, ...; 0 before the finals)."""
    winner_bot_id: int | None = Field(default=None, foreign_key="bot.id")
    created_at: datetime = Field(default_factory=utc_now)


class CompetitionEntry(SQLModel, table=True):
    """A bot entered in a competition, and the version it plays its finals with."""

    competition_id: int = Field(foreign_key="competition.id", primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", primary_key=True)
    position: int
    """Order of entry (the last tie-break)."""
    selected_version: int | None = None
    """The version its author chose for the finals before the deadline (None: the active one)."""
    frozen_version: int | None = None
    """The version frozen at the deadline: the only one that plays its finals."""
    seed: int | None = None
    """Its place in the open ladder at the deadline (1 = best): the finals' seeding."""
    out_at_stage: int | None = None
    """The finals stage after which it was cut or lost (None: still in, or the winner)."""
    tier: int = 0
    """Its tier (0 the lowest; only with tiers): raised by each promotion, lowered by a relegation."""
    tier_since_match: int = 0
    """The highest match id when it came into its tier: only the matches of its tier's league
    after it count toward a promotion or a relegation (so a move earns the next afresh)."""
    entered_at: datetime = Field(default_factory=utc_now)


class CompetitionStage(SQLModel, table=True):
    """The leagues that play one stage of a competition's finals (one per bracket pair, or one
    for a stage of the reset ladder), each pinned to the entries' frozen versions."""

    competition_id: int = Field(foreign_key="competition.id", primary_key=True)
    stage: int = Field(primary_key=True)
    slot: int = Field(primary_key=True)
    league_id: int = Field(foreign_key="league.id", unique=True)


class CompetitionDecision(SQLModel, table=True):
    """Every decision a competition made (freeze, seed, cut, advance, winner), when and why,
    shown as it was made. ``key`` makes recording one twice impossible (a resumed step)."""

    __table_args__ = (UniqueConstraint("competition_id", "key"),)

    id: int | None = Field(default=None, primary_key=True)
    competition_id: int = Field(foreign_key="competition.id", index=True)
    key: str
    kind: str
    """freeze, drop, close, finals, cut, advance, winner."""
    bot_id: int | None = Field(default=None, foreign_key="bot.id")
    stage: int = 0
    reason: str
    """A sentence for people."""
    decided_at: datetime
    """By the competition's clock (which tests control)."""
