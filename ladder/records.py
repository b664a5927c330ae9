"""Plain values that cross the ladder's boundary: what the server hands in, what it gets back.

The server fills a ``MatchOutcome`` when a match ends and passes it to
``matches.finish_match``; everything returned from the ladder is one of the frozen dataclasses
here, never a live database row, so it can travel between threads freely.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from kingmaker.games.api import Action, OptionValue, Seat
from kingmaker.games.serial import action_to_data
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.step_output import StepOutput


@dataclass(frozen=True)
class SeatOutcome:
    """How one seat's match ended, as the referee saw it."""

    seat: Seat
    bot_id: int
    score: int
    rank: int
    """The place the game gave this seat (1 = winner); the ladder moves bot-faulty seats last."""
    strikes: int = 0
    end_reason: EndReason = EndReason.FINISHED
    detail: str = ""
    """One sentence for people: "finished", "timed out 3 times in round 2", ..."""
    stderr_tail: str = ""
    """The last lines the bot wrote to stderr (managed bots), kept for fault reports."""
    strike_log: tuple[dict[str, Any], ...] = ()
    """``{"request": id, "kind": ..., "detail": ...}`` per strike, for the bot's owner."""
    stderr: str = ""
    """What the bot wrote on stderr during the match (its end), for the bot's owner."""
    stderr_bytes: int = 0
    exit: str = ""
    """How its process ended during the match, if it did."""
    version: int | None = None
    """The bot's version that played."""
    step_output: tuple[StepOutput, ...] = ()
    """What the bot printed on stderr at each step, bounded (``step_output``), for its owner."""

    @property
    def has_log(self) -> bool:
        """Whether there is anything for the owner to read (most seats leave nothing)."""
        return bool(self.strike_log or self.stderr_bytes or self.exit or self.step_output)


@dataclass(frozen=True)
class MatchOutcome:
    """Everything the ladder stores when a match ends, written in one transaction."""

    match_id: int
    seats: tuple[SeatOutcome, ...]
    rules_edition: str
    actions: list[dict[str, Any]] = field(default_factory=list)
    """The joint actions in order, as ``actions_to_data`` makes them."""
    digests: list[list[str]] = field(default_factory=list)
    """Per seat, ``serial.digest`` of each observation it was sent, in order."""
    timings: dict[str, Any] = field(default_factory=dict)
    """Figures for people: ``{"duration_s": 3.2, "think_ms": [[per request, ...] per seat],
    "decisions": [{seat: [ms charged, source]} per joint decision]}``."""
    packed: PackedLog | None = None
    """The log's actions, digests and timings packed already where the match was refereed (a
    worker process holds them, so the central server need not turn them into data and pack them
    again): stored as they are, and then ``actions`` is empty and ``timings`` holds only the think
    times (what the match's summary reads)."""


@dataclass(frozen=True)
class PackedLog:
    """A match log's three blobs (``matches.compact_logs``: ``pack_actions``, ``pack_digests``,
    ``pack_timings``), as the ``matchlog`` row stores them."""

    actions: bytes
    digests: bytes
    timings: bytes


def actions_to_data(
    log: Sequence[Mapping[Seat, Action]], to_data: Callable[[Action], Any] = action_to_data
) -> list[dict[str, Any]]:
    """The JSON form of a match's joint actions: ``[{"0": action data, ...}, ...]`` (``to_data``:
    ``serial.action_to_data``, or one that remembers what it wrote)."""
    return [{str(seat): to_data(action) for seat, action in sorted(joint.items())} for joint in log]


@dataclass(frozen=True)
class BotInfo:
    id: int
    name: str
    games: tuple[str, ...]
    command: tuple[str, ...] | None
    """The launch argv of a managed bot; None for a remote bot."""
    working_dir: str | None
    enabled: bool
    suspended_reason: str | None
    suspended_stderr: str | None
    created_at: datetime
    retired: bool = False
    """Removed: kept for its history only."""
    author_id: int | None = None
    """Its owner; None: the admin."""
    author: str | None = None
    """Its owner's name; None: the admin."""
    active_version: int | None = None
    """The version that plays now (None: a remote bot, or none has passed validation yet)."""

    @property
    def managed(self) -> bool:
        return self.command is not None

    @property
    def active(self) -> bool:
        """May be scheduled: enabled and not suspended."""
        return self.enabled and self.suspended_reason is None


@dataclass(frozen=True)
class MatchTicket:
    """A match to run: what the server needs to start it."""

    match_id: int
    league_id: int | None
    game: str
    seed: int
    options: dict[str, OptionValue]
    bot_ids: tuple[int, ...]
    """Seat i is played by ``bot_ids[i]``."""
    status: str
    ordinal: int
    duplicate_group: int | None


@dataclass(frozen=True)
class RatingChange:
    bot_id: int
    game: str
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float


@dataclass(frozen=True)
class FinishReport:
    """What finishing a match did."""

    match_id: int
    status: str
    """finished, or void if the server failed a seat (``EndReason.is_server_fault``)."""
    already_recorded: bool = False
    """True when the match had been finished before: nothing was counted again."""
    ranks: tuple[int, ...] = ()
    """The ladder rank of each seat (bot faults last)."""
    rating_changes: tuple[RatingChange, ...] = ()
    suspended_bot_ids: tuple[int, ...] = ()
    replay_match_id: int | None = None
    """For a voided match, the fresh match that replays it (None when it is not replayed)."""
    rated: bool = True
    """False for a void match and for one in which no seat played."""


@dataclass(frozen=True)
class LeagueInfo:
    id: int
    name: str
    game: str
    format: str
    players: int
    seed: int
    duplicate: bool
    options: dict[str, OptionValue]
    settings: dict[str, Any]
    bot_ids: tuple[int, ...]
    finished: bool
    status_reason: str | None = None
    """Why the league ended or last stopped."""
    paused: bool = False
    concurrency: int | None = None
    """The matches at once its runs keep (None: the server's default)."""
    away_ids: tuple[int, ...] = ()
    """Entrants not scheduled while they are away (remote bots not connected)."""
    left_ids: tuple[int, ...] = ()
    """Entrants that left the league (still in ``bot_ids``, for their matches)."""
    started_at: datetime | None = None
    """When its first match started."""
    matches_planned: int = 0
