"""Helpers for the ladder tests: the small test game, bots, and table snapshots.

The test game ``dice_duel`` (2 to 5 players, one option) is registered for the duration of each
test, so these tests do not depend on the real games' engines; one end-to-end test uses a real
game on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, inspect, text
from sqlmodel import select

from kingmaker.games.api import Game, GameSpec, OptionSpec
from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.records import BotInfo
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot

TEST_GAME = "dice_duel"


@dataclass(frozen=True)
class Roll:
    dice: int


@dataclass(frozen=True)
class View:
    total: int


def _no_engine(players: int, seed: int, options: Any) -> Any:
    raise NotImplementedError("the ladder tests never play dice_duel")


DICE_DUEL = Game(
    spec=GameSpec(
        name=TEST_GAME,
        title="Dice duel",
        edition="test-1",
        min_players=2,
        max_players=5,
        chance=True,
        hidden_information=False,
        simultaneous=False,
        action_types=(Roll,),
        observation_type=View,
        max_decisions=10,
        options=(OptionSpec("target", 10, "points to win"),),
    ),
    create=_no_engine,
)


def make_bots(db: Database, count: int, game: str = TEST_GAME, first: int = 0) -> list[BotInfo]:
    """``count`` remote bots named bot0, bot1, ... (from bot``first``) that play ``game``."""
    return [register_bot(db, f"bot{i}", [game])[0] for i in range(first, first + count)]


def suspend(db: Database, name: str) -> None:
    """Suspend a bot as its faults would (without the matches that make them)."""
    with db.transaction() as session:
        bot = session.exec(select(Bot).where(Bot.name == name)).one()
        bot.suspended_reason = "suspended after 3 faults in its last 5 matches"
        session.add(bot)


def snapshot(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, for "this call changed nothing" checks."""
    with db.engine.connect() as connection:
        tables = inspect(connection).get_table_names()
        return {
            table: sorted(
                (tuple(row) for row in connection.execute(text(f'SELECT * FROM "{table}"'))),
                key=repr,
            )
            for table in tables
        }


def insert_row(connection: Connection, table: str, **values: object) -> None:
    """One row written as plain SQL: a revision's test fills the tables as an older schema had them."""
    columns = ", ".join(values)
    marks = ", ".join(f":{name}" for name in values)
    connection.execute(text(f'INSERT INTO "{table}" ({columns}) VALUES ({marks})'), values)
