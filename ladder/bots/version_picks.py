"""An owner's own versions at a table: ``NAME@VERSION`` seats that version of the bot, not its
active one (docs/play.md). Only the bot's owner (or the admin) may pick a version; anyone else is
told what an owner naming a version that does not exist is told, word for word, so a refusal
never says whether a version exists. A version plays only if it built and passed validation
(active, retired or under its A/B duel) and its build is still kept (not pruned).

The version is seated as a competition's pinned versions are (``pinned_versions.pinned_in``), so
the match's seat records that version's number."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlmodel import col, select

from kingmaker.ladder.bots.versions import check_kept
from kingmaker.ladder.errors import InvalidRequestError, NotFoundError
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Author, Bot, BotGame, BotVersion, VersionStatus

SEPARATOR = "@"
PLAYABLE = (VersionStatus.ACTIVE, VersionStatus.RETIRED, VersionStatus.TESTING)
"""Built and validated: the statuses a version may be played in."""


@dataclass(frozen=True)
class Pick:
    """One opponent as asked for: a bot, and the version asked for (None: its active one)."""

    bot: str
    version: int | None = None


def parse_pick(text: str) -> Pick:
    """``NAME`` or ``NAME@VERSION`` (a whole number from 1); anything else is refused."""
    name, at, number = text.partition(SEPARATOR)
    if not at:
        return Pick(text)
    if not number.isascii() or not number.isdigit() or int(number) < 1 or len(number) > 9:
        raise InvalidRequestError(f"{text[:80]!r}: a bot's version is NAME@N, N a whole number from 1")
    return Pick(name, int(number))


def check_picks(
    db: Database, picks: Sequence[Pick], may_pick: Callable[[int | None], bool]
) -> dict[str, int]:
    """Bot name -> version, for the picks that name a version, each checked: ``may_pick(owner)``
    says whether the caller may pick versions of a bot with that owner (author id; None: the
    admin's), and the version must be playable. ``NotFoundError`` (the same words whether the
    version is missing or not the caller's) or ``InvalidRequestError`` (why it cannot play)."""
    chosen = {pick.bot: pick.version for pick in picks if pick.version is not None}
    if not chosen:
        return {}
    with db.read() as session:
        for name, number in chosen.items():
            bot = session.exec(select(Bot).where(Bot.name == name)).first()
            version = (
                session.exec(
                    select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.number == number)
                ).first()
                if bot is not None and may_pick(bot.author_id)
                else None
            )
            if version is None:
                raise NotFoundError(
                    f"{name}{SEPARATOR}{number}: no version of a bot of yours by that number "
                    "(only a bot's owner may play its versions)"
                )
            _check_playable(name, version)
    return chosen


def _check_playable(name: str, version: BotVersion) -> None:
    if version.status not in PLAYABLE:
        reason = f" ({version.status_reason})" if version.status_reason else ""
        raise InvalidRequestError(
            f"version {version.number} of {name} is {version.status}{reason}: only a version that "
            "built and passed validation can play"
        )
    check_kept(name, version)


def own_versions(db: Database, author_name: str, game: str) -> list[str]:
    """``NAME@N`` for every playable version of the author's bots that play ``game``, by bot and
    newest first: what the play page offers its owner beside the active bots."""
    with db.read() as session:
        rows = session.exec(
            select(Bot.name, BotVersion.number)
            .join(Author, col(Author.id) == col(Bot.author_id))
            .join(BotVersion, col(BotVersion.bot_id) == col(Bot.id))
            .join(BotGame, col(BotGame.bot_id) == col(Bot.id))
            .where(
                Author.name == author_name,
                BotGame.game == game,
                col(Bot.retired_at).is_(None),
                col(BotVersion.status).in_(PLAYABLE),
                col(BotVersion.pruned_at).is_(None) | (BotVersion.source != "submission"),
            )
            .order_by(col(Bot.name), col(BotVersion.number).desc())
        ).all()
    return [f"{name}{SEPARATOR}{number}" for name, number in rows]
