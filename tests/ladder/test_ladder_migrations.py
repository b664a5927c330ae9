"""The alembic migrations: an empty database upgrades to head, and head matches the models."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from ladder_support import insert_row
from postgres_server import Databases
from sqlalchemy import Engine, create_engine, inspect, text
from sqlmodel import SQLModel

import kingmaker.ladder.storage.models  # noqa: F401  (registers the tables)
from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.storage.db import open_database
from kingmaker.ladder.storage.migrate import (
    MIGRATIONS,
    alembic_config,
    current_revision,
    head_revision,
    upgrade,
)


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An engine on a database with no schema at all: an SQLite file, or a PostgreSQL database."""
    if request.param == "sqlite":
        engine = create_engine(f"sqlite:///{tmp_path / 'empty.db'}")
        yield engine
        engine.dispose()
        return
    databases: Databases = request.getfixturevalue("postgres")
    url = databases.empty_database()
    engine = create_engine(url)
    yield engine
    engine.dispose()
    databases.drop(url)


def test_an_empty_database_upgrades_to_head(empty_engine: Engine) -> None:
    engine = empty_engine
    assert current_revision(engine) is None
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    tables = set(inspect(engine).get_table_names())
    assert set(SQLModel.metadata.tables) <= tables


def test_the_models_match_the_migrated_schema(empty_engine: Engine) -> None:
    engine = empty_engine
    upgrade(engine)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, SQLModel.metadata)
    assert differences == []


def test_upgrading_again_keeps_the_data(database_url: str) -> None:
    url = database_url
    db = open_database(url)
    register_bot(db, "keeper", ["dice_duel"])
    db.close()
    db = open_database(url)
    with db.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT name FROM bot").scalars().all() == ["keeper"]
    db.close()


def test_downgrade_to_nothing_and_back(empty_engine: Engine) -> None:
    engine = empty_engine
    upgrade(engine)
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    upgrade(engine)
    assert current_revision(engine) == head_revision()


def test_the_scripts_ship_as_python_packages() -> None:
    # setup.py collects folders with an __init__.py: both migration folders must have one.
    assert (MIGRATIONS / "__init__.py").exists()
    assert (MIGRATIONS / "versions" / "__init__.py").exists()
    assert (MIGRATIONS / "env.py").exists()


def test_0009_counts_the_leagues_already_played(empty_engine: Engine) -> None:
    """The revision that adds a league's maintained rows fills them for leagues already there,
    as the league store would have kept them (void matches' replays are not planned twice)."""
    before = ScriptDirectory.from_config(alembic_config()).get_revision("0009").down_revision
    assert isinstance(before, str)
    upgrade(empty_engine, before)
    now = datetime(2026, 11, 22, tzinfo=UTC)
    with empty_engine.begin() as connection:
        insert = functools.partial(insert_row, connection)

        for bot in (1, 2, 3):
            insert("bot", id=bot, name=f"b{bot}", token_hash=f"h{bot}", enabled=True, created_at=now,
                   token_rotated_at=now)  # fmt: skip
            insert("rating", bot_id=bot, game="kingdoms", mu=20.0 + bot, sigma=5.0 + bot, conservative=0.0,
                   matches=0, wins=0, rank_sum=0, faults=0, updated_at=now)  # fmt: skip
        insert("league", id=1, name="old", game="kingdoms", format="ladder", players=2, seed=1,
               duplicate=False, options="{}", settings="{}", groups_planned=4, matches_planned=4,
               finished=False, paused=False, created_at=now)  # fmt: skip
        for bot in (1, 2, 3):
            insert("leaguebot", league_id=1, bot_id=bot, position=bot - 1)
        # match: (ordinal, seats, status, rated, replay of)
        matches = {
            1: (0, (1, 2), "finished", True, None),
            2: (1, (1, 3), "void", False, None),
            3: (1, (1, 3), "finished", True, 2),
            4: (2, (2, 3), "scheduled", True, None),
            5: (3, (2, 1), "finished", False, None),
        }
        for match_id, (ordinal, seats, status, rated, replay_of) in matches.items():
            insert("match", id=match_id, league_id=1, ordinal=ordinal, game="kingdoms", players=2, seed=9,
                   options="{}", status=status, rated=rated, replay_of=replay_of, created_at=now)  # fmt: skip
            for seat, bot in enumerate(seats):
                insert("matchseat", match_id=match_id, seat=seat, bot_id=bot)
    upgrade(empty_engine)
    with empty_engine.connect() as connection:
        entrants = connection.execute(text("SELECT bot_id, planned, mu, sigma, away FROM leaguebot")).all()
        pairs = connection.execute(
            text(
                "SELECT bot_id, other_id, planned, last_group, played FROM leaguepair WHERE bot_id < other_id"
            )
        ).all()
    assert sorted(entrants) == [(1, 3, 21.0, 6.0, False), (2, 3, 22.0, 7.0, False), (3, 2, 23.0, 8.0, False)]
    assert sorted(pairs) == [(1, 2, 2, 3, 1), (1, 3, 1, 1, 1), (2, 3, 1, 2, 0)]
