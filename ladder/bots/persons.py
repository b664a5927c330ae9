"""A person's seat: the row a person's matches name in the seat where a bot's would be.

A match's seats name bots (``MatchSeat.bot_id``), so a person who plays (docs/play.md) gets a
bot row of their own, named ``person:NAME``: a name no one can register (``names`` refuses the
colon), so a seat named so is always a person. The row has no command and a token nobody knows
(the person plays through the server's own ``Play`` stream, never the Arena), plays every game,
and has no ladder rows: a person's matches are unrated, so they never appear in standings. A
person is never suspended: a closed tab loses its match, and that is all it costs.
"""

from __future__ import annotations

from sqlmodel import select

from kingmaker.games.registry import game_names
from kingmaker.ladder.bots.tokens import hash_token, new_token
from kingmaker.ladder.names import check_name
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot, BotGame

PREFIX = "person:"
GUEST = "guest:"


def person_name(name: str) -> str:
    """The seat name of the person called ``name`` (an author's name, or a guest's)."""
    check_name("person", name)
    return PREFIX + name


def guest_name(name: str) -> str:
    """The seat name of the guest called ``name``: marked as a guest's, never an author's."""
    check_name("guest", name)
    return PREFIX + GUEST + name


def is_guest(seat_name: str) -> bool:
    return seat_name.startswith(PREFIX + GUEST)


def is_person(seat_name: str) -> bool:
    """Whether a seat so named was played by a person."""
    return seat_name.startswith(PREFIX)


def person_seat(db: Database, seat_name: str) -> int:
    """The id of the row that seats the person ``seat_name`` (``person_name``'s or
    ``guest_name``'s), made on their first match; ready to play."""
    if not is_person(seat_name):
        raise ValueError(f"{seat_name} is not a person's seat name")
    with db.transaction() as session:
        bot = session.exec(select(Bot).where(Bot.name == seat_name)).first()
        if bot is None:
            bot = Bot(name=seat_name, token_hash=hash_token(new_token()))
            session.add(bot)
            session.flush()
        bot.enabled, bot.retired_at = True, None
        bot.suspended_reason = bot.suspended_stderr = bot.suspended_at = None
        session.add(bot)
        session.flush()
        assert bot.id is not None
        plays = set(session.exec(select(BotGame.game).where(BotGame.bot_id == bot.id)).all())
        for game in game_names():
            if game not in plays:
                session.add(BotGame(bot_id=bot.id, game=game))
        session.flush()
        return bot.id
