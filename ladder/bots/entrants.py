"""Who may be seated: the named bots, checked to exist, be active and play the game.

A league's creation and a one-off match both seat bots by name; this check is theirs alike, so it
lives apart from both (``leagues`` and ``matches`` would otherwise import each other)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, select

from kingmaker.ladder.errors import InvalidRequestError, NotFoundError
from kingmaker.ladder.storage.models import Bot, BotGame


def active_bots_for(session: Session, game: str, names: Sequence[str]) -> list[Bot]:
    """The named bots, in order, checked to exist, be active and play ``game``."""
    found: list[Bot] = []
    for name in names:
        bot = session.exec(select(Bot).where(Bot.name == name)).first()
        if bot is None:
            raise NotFoundError(f"no bot named {name!r}")
        if bot.retired_at is not None:
            raise InvalidRequestError(f"bot {name!r} was removed")
        if not bot.enabled:
            raise InvalidRequestError(f"bot {name!r} is disabled")
        if bot.suspended_reason is not None:
            raise InvalidRequestError(f"bot {name!r} is suspended: {bot.suspended_reason}")
        plays = session.exec(select(BotGame).where(BotGame.bot_id == bot.id, BotGame.game == game)).first()
        if plays is None:
            raise InvalidRequestError(f"bot {name!r} does not play {game}")
        found.append(bot)
    return found
