"""The bot author's side of a match: what a bot is asked, and what it answers.

Write a bot by subclassing ``Bot`` and overriding ``act`` (or by passing a plain function to
``kingmaker.sdk.run``). ``act`` gets a ``Request`` holding the seat's observation and its legal
actions as the game's own typed values, and returns either one of those actions or its index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kingmaker.games.api import Action, Observation, OptionValue, Result, Seat


@dataclass(frozen=True)
class MatchStart:
    """A match this bot has a seat in is about to begin."""

    match_id: str
    game: str
    seat: Seat
    players: int
    options: dict[str, OptionValue]
    seat_names: tuple[str, ...]
    """The bot name at each seat, so a bot knows whom it plays."""


@dataclass(frozen=True)
class Request:
    """The referee asks this seat for a decision."""

    match_id: str
    request_id: int
    game: str
    seat: Seat
    observation: Observation
    legal_actions: tuple[Action, ...]
    deadline_ms: int
    """Milliseconds this decision may take, transport not counted (see docs/protocol.md)."""
    time_bank_ms: int = 0
    """Milliseconds left in this seat's bank, spent once a decision overruns ``deadline_ms``."""


@dataclass(frozen=True)
class MatchEnd:
    """A match this bot played is over."""

    match_id: str
    seat: Seat
    result: Result | None
    """The game's result, or None when the match was aborted without one."""
    end_reason: str
    """How this seat's game ended: ``FINISHED``, ``TIMEOUT``, ``ILLEGAL_ACTION``, ..."""


Reply = Action | int
"""A bot answers with one of the legal actions, or with its index in ``legal_actions``."""


class Bot:
    """Override ``act``; the other hooks are optional."""

    name: str = "bot"

    def act(self, request: Request) -> Reply:
        raise NotImplementedError

    def on_match_start(self, start: MatchStart) -> None:
        """Called once per match before its first request."""

    def on_match_end(self, end: MatchEnd) -> None:
        """Called once per match after its last request."""


class FunctionBot(Bot):
    """A bot made from a function of the request."""

    def __init__(self, choose: Callable[[Request], Reply], name: str | None = None) -> None:
        self._choose = choose
        self.name = name or str(getattr(choose, "__name__", "bot"))

    def act(self, request: Request) -> Reply:
        return self._choose(request)


def as_bot(bot: Bot | Callable[[Request], Reply]) -> Bot:
    return bot if isinstance(bot, Bot) else FunctionBot(bot)


def resolve_reply(request: Request, reply: Any) -> Action:
    """The action a reply stands for; ``ValueError`` if it is neither a legal action nor an index."""
    if isinstance(reply, int) and not isinstance(reply, bool):
        if 0 <= reply < len(request.legal_actions):
            return request.legal_actions[reply]
        raise ValueError(f"index {reply} is outside the {len(request.legal_actions)} legal actions")
    if reply in request.legal_actions:
        return reply
    raise ValueError(f"{reply!r} is not a legal action")
