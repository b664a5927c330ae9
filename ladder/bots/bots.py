"""Registering bots, their tokens, and turning them on and off.

A managed bot has a launch command (an argv list, never a shell string) and maybe a working
directory: the server starts it. A remote bot has neither and connects by itself. Either way the
bot proves who it is with the token returned once by ``register_bot`` or ``rotate_token``.

Disabling a bot keeps all its matches and ratings; it only stops it from authenticating and
cancels its matches that have not started. Removing (retiring) a bot is for good: it stays in the
history under its name, and is never admitted or scheduled again. Suspension (see ``faults.py``)
is the automatic cousin: the bot may still authenticate (so it can be told why), but it is not
scheduled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from sqlalchemy import bindparam
from sqlalchemy import select as select_columns  # sqlmodel's takes at most four
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from kingmaker.games.registry import game_names
from kingmaker.ladder.bots.authors import check_quota
from kingmaker.ladder.bots.tokens import hash_token, new_token, token_matches
from kingmaker.ladder.bots.version_activation import record_command_version
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, NotFoundError
from kingmaker.ladder.names import check_name
from kingmaker.ladder.pairing.league_pool import level_with_the_field
from kingmaker.ladder.ratings.ratings import new_rating
from kingmaker.ladder.records import BotInfo
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import (
    Author,
    Bot,
    BotGame,
    BotVersion,
    Match,
    MatchSeat,
    MatchStatus,
    Rating,
    utc_now,
)
from kingmaker.ladder.storage.tables import core_table, read_rows


def register_bot(
    db: Database,
    name: str,
    games: Sequence[str],
    command: Sequence[str] | None = None,
    working_dir: str | None = None,
    author_id: int | None = None,
) -> tuple[BotInfo, str]:
    """Register a bot; returns it and its token (shown this once, stored only as a hash). An
    author's bot counts against their quota; ``author_id`` None: the admin's."""
    check_name("bot", name)
    checked_games = _check_games(games)
    argv = _check_command(command)
    if working_dir is not None and argv is None:
        raise InvalidRequestError("a working directory only makes sense for a managed bot")
    token = new_token()
    try:
        with db.transaction() as session:
            bot = new_bot(session, name, checked_games, token, author_id)
            bot.command, bot.working_dir = argv, working_dir
            if argv is not None:  # what it runs is its version 1
                record_command_version(session, bot, argv, working_dir)
            info = bot_info(session, bot)
    except IntegrityError:
        # Another thread registered the same name between our check and our insert.
        raise ConflictError(f"a bot named {name!r} already exists") from None
    return info, token


def new_bot(
    session: Session, name: str, games: Sequence[str], token: str | None = None, author_id: int | None = None
) -> Bot:
    """A bot row with its games and ladder rows (inside the caller's transaction). Without a
    token it gets one nobody knows (a submitted bot: the server launches it with one-time keys).
    An author's bot counts against their quota; ``author_id`` None: the admin's."""
    checked = _check_games(games)
    if session.exec(select(Bot).where(Bot.name == name)).first() is not None:
        raise ConflictError(f"a bot named {name!r} already exists")
    if author_id is not None:
        check_quota(session, author_id)
    bot = Bot(name=name, token_hash=hash_token(token or new_token()), author_id=author_id)
    session.add(bot)
    session.flush()
    assert bot.id is not None
    for game in checked:
        session.add(BotGame(bot_id=bot.id, game=game))
        # The ladder row exists from the start, so standings list unrated bots too.
        session.add(new_rating(bot.id, game))
    session.flush()
    return bot


def rotate_token(db: Database, name: str) -> str:
    """Give the bot a new token; the old one stops working at once."""
    token = new_token()
    with db.transaction() as session:
        bot = find_bot(session, name)
        bot.token_hash = hash_token(token)
        bot.token_rotated_at = utc_now()
        session.add(bot)
    return token


def authenticate(db: Database, token: str) -> BotInfo | None:
    """The enabled bot that holds ``token``, or None. Suspended bots are returned (check .active)."""
    with db.read() as session:
        bot = session.exec(select(Bot).where(Bot.token_hash == hash_token(token))).first()
        if bot is None or not token_matches(token, bot.token_hash) or not bot.enabled:
            return None
        return bot_info(session, bot)


def token_holder(db: Database, token: str) -> BotInfo | None:
    """The bot that holds ``token``, enabled or not (so a disabled one can be told it is), or None."""
    with db.read() as session:
        bot = session.exec(select(Bot).where(Bot.token_hash == hash_token(token))).first()
        if bot is None or not token_matches(token, bot.token_hash) or bot.retired_at is not None:
            return None
        return bot_info(session, bot)


def token_holders(db: Database, tokens: Sequence[str]) -> dict[str, BotInfo]:
    """``token_holder`` for many tokens in one read (a thousand bots saying hello at once cost a
    few queries, not three thousand): the bot of each token that has one, by token."""
    hashes = {hash_token(token): token for token in tokens}
    with db.read() as session:
        found = session.exec(select(Bot).where(col(Bot.token_hash).in_(list(hashes)))).all()
        held = [
            bot
            for bot in found
            if bot.retired_at is None and token_matches(hashes[bot.token_hash], bot.token_hash)
        ]
        return {
            hashes[bot.token_hash]: info for bot, info in zip(held, bot_infos(session, held), strict=True)
        }


def set_enabled(db: Database, name: str, enabled: bool) -> BotInfo:
    """Enable or disable a bot. Disabling cancels its matches that have not started."""
    with db.transaction() as session:
        bot = find_bot(session, name)
        _refuse_if_retired(bot)
        assert bot.id is not None
        if enabled and not bot.enabled:
            level_with_the_field(session, bot.id)
        bot.enabled = enabled
        session.add(bot)
        if not enabled:
            assert bot.id is not None
            withdraw_from_schedule(session, bot.id, f"bot {bot.name} was disabled")
        return bot_info(session, bot)


def edit_bot(
    db: Database,
    name: str,
    *,
    command: Sequence[str] | None = None,
    working_dir: str | None = None,
    games: Sequence[str] | None = None,
) -> BotInfo:
    """Change a bot's command, working directory (``""`` clears it) or games; None leaves each as
    it is. A game it no longer plays keeps its rating and history; its waiting matches of that
    game are cancelled."""
    argv = _check_command(command) if command is not None else None
    checked = _check_games(games) if games is not None else None
    with db.transaction() as session:
        bot = find_bot(session, name)
        _refuse_if_retired(bot)
        assert bot.id is not None
        new_command = argv if argv is not None else bot.command
        new_working_dir = bot.working_dir if working_dir is None else working_dir or None
        if working_dir and new_command is None:
            raise InvalidRequestError("a working directory only makes sense for a managed bot")
        if checked is not None:
            set_games(session, bot, checked)
        session.flush()
        if new_command is not None and (new_command, new_working_dir) != (bot.command, bot.working_dir):
            # The old command stays as the previous version. The bot's row takes the new one as
            # the version is activated, after its ratings moved (the order a result locks them).
            record_command_version(session, bot, new_command, new_working_dir)
        return bot_info(session, bot)


def set_games(session: Session, bot: Bot, games: Sequence[str]) -> None:
    """The games the bot plays from now on (inside the caller's transaction). A game it no longer
    plays keeps its rating and history; its waiting matches of that game are cancelled."""
    checked = _check_games(games)
    assert bot.id is not None
    current = set(session.exec(select(BotGame.game).where(BotGame.bot_id == bot.id)).all())
    for game in set(checked) - current:
        session.add(BotGame(bot_id=bot.id, game=game))
        if session.exec(select(Rating).where(Rating.bot_id == bot.id, Rating.game == game)).first() is None:
            session.add(new_rating(bot.id, game))
    for game in current - set(checked):
        dropped = session.exec(select(BotGame).where(BotGame.bot_id == bot.id, BotGame.game == game)).one()
        session.delete(dropped)
        withdraw_from_schedule(session, bot.id, f"bot {bot.name} no longer plays {game}", game)


def retire_bot(db: Database, name: str) -> BotInfo:
    """Remove a bot: it keeps its matches, ratings and name, but is never scheduled or admitted
    again (its token stops working; its waiting matches are cancelled)."""
    with db.transaction() as session:
        bot = find_bot(session, name)
        _refuse_if_retired(bot)
        assert bot.id is not None
        bot.retired_at = utc_now()
        bot.enabled = False
        session.add(bot)
        withdraw_from_schedule(session, bot.id, f"bot {bot.name} was removed")
        return bot_info(session, bot)


def _refuse_if_retired(bot: Bot) -> None:
    if bot.retired_at is not None:
        raise InvalidRequestError(f"bot {bot.name!r} was removed; register a new one instead")


def reinstate(db: Database, name: str) -> BotInfo:
    """Lift a suspension (the record of it is cleared; its matches stay as they were) and start
    its fault window afresh: the faults that suspended it are not counted again."""
    with db.transaction() as session:
        bot = find_bot(session, name)
        _refuse_if_retired(bot)
        if bot.suspended_reason is None:
            raise InvalidRequestError(f"bot {name!r} is not suspended")
        assert bot.id is not None
        level_with_the_field(session, bot.id)
        bot.suspended_reason = None
        bot.suspended_stderr = None
        bot.suspended_at = None
        bot.faults_forgiven_at = utc_now()  # a fresh fault window: one more fault must not suspend it
        session.add(bot)
        return bot_info(session, bot)


def get_bot(db: Database, name: str) -> BotInfo:
    """The bot named ``name`` (for "bot show"): ``NotFoundError`` if there is none."""
    with db.read() as session:
        return bot_info(session, find_bot(session, name))


def get_bot_by_id(db: Database, bot_id: int) -> BotInfo:
    """The bot with this id (the server looks seats up by id): ``NotFoundError`` if there is none."""
    with db.read() as session:
        bot = session.get(Bot, bot_id)
        if bot is None:
            raise NotFoundError(f"no bot with id {bot_id}")
        return bot_info(session, bot)


def list_bots(
    db: Database, game: str | None = None, limit: int | None = None, after: str | None = None
) -> list[BotInfo]:
    """Bots by name (only those that play ``game``, if given): at most ``limit``, named after
    ``after`` when given (the next page)."""
    with db.read() as session:
        query = select(Bot).order_by(col(Bot.name)).limit(limit)
        if after is not None:
            query = query.where(col(Bot.name) > after)
        if game is not None:
            query = query.join(BotGame).where(BotGame.game == game)
        return bot_infos(session, session.exec(query).all())


def names_of(db: Database, bot_ids: Sequence[int]) -> dict[int, str]:
    """The names of these bots, by id."""
    with db.read() as session:
        return names_in(session, bot_ids)


def names_in(session: Session, bot_ids: Sequence[int]) -> dict[int, str]:
    """``names_of`` inside the caller's transaction."""
    rows = session.exec(select(Bot.id, Bot.name).where(col(Bot.id).in_(list(bot_ids)))).all()
    return {bot_id: name for bot_id, name in rows if bot_id is not None}


class Runnable(NamedTuple):
    """What the server needs to seat a bot: its name, and how to run it (no command: remote)."""

    name: str
    command: tuple[str, ...] | None
    working_dir: str | None
    version: int | None = None
    """The version that plays (``Bot.active_version``)."""
    protocol: str = "grpc"
    build_hash: str | None = None
    """The built folder it runs in, for a submitted version."""


def runnables(db: Database, bot_ids: Sequence[int]) -> dict[int, Runnable]:
    """How to run each of these bots, read in one query (the server does this per match);
    ``NotFoundError`` if one does not exist."""
    with db.read() as session:
        return runnables_in(session, bot_ids)


_bots, _versions = core_table(Bot), core_table(BotVersion)
_RUNNABLES = (
    select_columns(
        _bots.c.id,
        _bots.c.name,
        _bots.c.command,
        _bots.c.working_dir,
        _bots.c.active_version,
        _versions.c.id.label("version_id"),
        _versions.c.protocol,
        _versions.c.build_hash,
    )
    .outerjoin(_versions, (_versions.c.bot_id == _bots.c.id) & (_versions.c.number == _bots.c.active_version))
    .where(_bots.c.id.in_(bindparam("ids", expanding=True)))
)
"""Built once, the columns alone, run on the session's connection: it is read before every
match, and the ORM's handling of two whole rows per bot cost more than the read."""


def runnables_in(session: Session, bot_ids: Sequence[int]) -> dict[int, Runnable]:
    """``runnables`` in the caller's session (one read with what else the caller reads)."""
    rows = read_rows(session, _RUNNABLES, {"ids": list(bot_ids)})
    found = {
        row.id: Runnable(
            row.name,
            tuple(row.command) if row.command is not None else None,
            row.working_dir,
            row.active_version,
            row.protocol if row.version_id is not None else "grpc",
            row.build_hash if row.version_id is not None else None,
        )
        for row in rows
    }
    missing = [bot_id for bot_id in bot_ids if bot_id not in found]
    if missing:
        raise NotFoundError(f"no bot with id {missing[0]}")
    return found


def find_bot(session: Session, name: str) -> Bot:
    bot = session.exec(select(Bot).where(Bot.name == name)).first()
    if bot is None:
        raise NotFoundError(f"no bot named {name!r}")
    return bot


def bot_info(session: Session, bot: Bot) -> BotInfo:
    games = session.exec(
        select(BotGame.game).where(BotGame.bot_id == bot.id).order_by(col(BotGame.game))
    ).all()
    return _info(bot, tuple(games), _author_name(session, bot.author_id))


def _info(bot: Bot, games: tuple[str, ...], author: str | None) -> BotInfo:
    assert bot.id is not None
    return BotInfo(
        id=bot.id,
        name=bot.name,
        games=games,
        command=tuple(bot.command) if bot.command is not None else None,
        working_dir=bot.working_dir,
        enabled=bot.enabled,
        suspended_reason=bot.suspended_reason,
        suspended_stderr=bot.suspended_stderr,
        created_at=bot.created_at,
        retired=bot.retired_at is not None,
        author_id=bot.author_id,
        author=author,
        active_version=bot.active_version,
    )


def bot_infos(session: Session, found: Sequence[Bot]) -> list[BotInfo]:
    """``bot_info`` of each bot, their games and authors read in two queries for all of them."""
    ids = [bot.id for bot in found]
    games: dict[int, list[str]] = {}
    rows = session.exec(
        select(BotGame.bot_id, BotGame.game).where(col(BotGame.bot_id).in_(ids)).order_by(col(BotGame.game))
    ).all()
    for bot_id, game in rows:
        games.setdefault(bot_id, []).append(game)
    author_ids = {bot.author_id for bot in found if bot.author_id is not None}
    authors = dict(session.exec(select(Author.id, Author.name).where(col(Author.id).in_(author_ids))).all())
    infos = []
    for bot in found:
        assert bot.id is not None
        infos.append(_info(bot, tuple(games.get(bot.id, ())), authors.get(bot.author_id)))
    return infos


def withdraw_from_schedule(session: Session, bot_id: int, reason: str, game: str | None = None) -> int:
    """Cancel the bot's matches (of ``game``, or of every game) that have not started; how many."""
    query = (
        select(Match).join(MatchSeat).where(MatchSeat.bot_id == bot_id, Match.status == MatchStatus.SCHEDULED)
    )
    if game is not None:
        query = query.where(Match.game == game)
    # Locked, and re-checked once locked (PostgreSQL): a match a league claims meanwhile has
    # started and is left alone.
    locked = query.order_by(col(Match.id)).with_for_update(of=Match).execution_options(populate_existing=True)
    waiting = session.exec(locked).all()
    for match in waiting:
        match.status = MatchStatus.CANCELLED
        match.status_reason = reason
        session.add(match)
    return len(waiting)


def _check_games(games: Sequence[str]) -> list[str]:
    if isinstance(games, str):
        games = [games]
    if not games:
        raise InvalidRequestError("a bot must play at least one game")
    known = game_names()
    for game in games:
        if game not in known:
            raise InvalidRequestError(f"unknown game {game!r} (known games: {', '.join(known)})")
    return sorted(set(games))


def _check_command(command: Sequence[str] | None) -> list[str] | None:
    if command is None:
        return None
    if isinstance(command, str):
        raise InvalidRequestError("the launch command must be an argv list, not one string")
    argv = list(command)
    if not argv or not all(isinstance(part, str) and part for part in argv):
        raise InvalidRequestError("the launch command must be a non-empty list of non-empty strings")
    return argv


def owners_of(db: Database, names: Sequence[str]) -> dict[str, int | None]:
    """The owner (author id; None: the admin) of each of these bots that exists."""
    if not names:
        return {}
    with db.read() as session:
        rows = session.exec(select(Bot.name, Bot.author_id).where(col(Bot.name).in_(list(set(names))))).all()
    return {str(name): author_id for name, author_id in rows}


def _author_name(session: Session, author_id: int | None) -> str | None:
    author = session.get(Author, author_id) if author_id is not None else None
    return author.name if author is not None else None
