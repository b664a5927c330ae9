"""Versions a league pins: a competition's finals play each entry's version frozen at the
deadline, never the one its author activated since. The league's ``settings["versions"]`` maps
bot id to version number (``leagues.create_league(versions=...)``); matches of other leagues
play the active version as always (``bots.runnables``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session, col, select

from kingmaker.ladder.bots.bots import Runnable, runnables_in
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot, BotVersion, League


def league_pins(db: Database, league_id: int | None) -> dict[int, int]:
    """Bot id -> pinned version number, for the league's matches (empty: none pinned)."""
    if league_id is None:
        return {}
    with db.read() as session:
        league = session.get(League, league_id)
        pinned = (league.settings or {}).get("versions") if league is not None else None
    return {int(bot_id): int(number) for bot_id, number in (pinned or {}).items()}


def pinned_runnables(db: Database, bot_ids: Sequence[int], league_id: int | None) -> dict[int, Runnable]:
    """How to run each of these bots in this league's match: its pinned version where the league
    pins one, else its active version. ``NotFoundError`` if a pinned version does not exist.
    One read transaction: this runs before every match of every league."""
    with db.read() as session:
        settings = (
            session.exec(select(League.settings).where(League.id == league_id)).first()
            if league_id is not None
            else None
        )  # the column alone, not the whole row
        return pinned_in(session, settings, bot_ids, league_id)


def pinned_in(
    session: Session, settings: Mapping[str, Any] | None, bot_ids: Sequence[int], league_id: int | None
) -> dict[int, Runnable]:
    """``pinned_runnables`` in the caller's transaction, the league's ``settings`` read already."""
    pinned = (settings or {}).get("versions")
    found = runnables_in(session, bot_ids)
    pins = {int(bot_id): int(number) for bot_id, number in (pinned or {}).items() if int(bot_id) in found}
    if not pins:
        return found
    rows = session.exec(
        select(Bot, BotVersion)
        .join(BotVersion, col(BotVersion.bot_id) == col(Bot.id))
        .where(col(Bot.id).in_(list(pins)), col(BotVersion.number).in_(list(set(pins.values()))))
    ).all()
    for bot, version in rows:
        assert bot.id is not None
        if pins.get(bot.id) != version.number:
            continue
        found[bot.id] = Runnable(
            bot.name,
            tuple(version.command) if version.command is not None else None,
            version.working_dir,
            version.number,
            version.protocol,
            version.build_hash,
        )
        del pins[bot.id]
    if pins:
        bot_id, number = next(iter(pins.items()))
        raise NotFoundError(
            f"bot {found[bot_id].name} has no version {number} (pinned in league {league_id})"
        )
    return found
