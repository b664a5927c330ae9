"""The alembic migrations: an empty database upgrades to head, and head matches the models."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from postgres_server import Databases
from sqlalchemy import Engine, create_engine, inspect
from sqlmodel import SQLModel

import kingmaker.ladder.models  # noqa: F401  (registers the tables)
from kingmaker.ladder.bots import register_bot
from kingmaker.ladder.db import open_database
from kingmaker.ladder.migrate import (
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
