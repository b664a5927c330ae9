"""The alembic migrations: an empty database upgrades to head, and head matches the models."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect
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


def test_an_empty_database_upgrades_to_head(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    assert current_revision(engine) is None
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    tables = set(inspect(engine).get_table_names())
    assert set(SQLModel.metadata.tables) <= tables
    engine.dispose()


def test_the_models_match_the_migrated_schema(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'head.db'}")
    upgrade(engine)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        differences = compare_metadata(context, SQLModel.metadata)
    assert differences == []
    engine.dispose()


def test_upgrading_again_keeps_the_data(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'again.db'}"
    db = open_database(url)
    register_bot(db, "keeper", ["dice_duel"])
    db.close()
    db = open_database(url)
    with db.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT name FROM bot").scalars().all() == ["keeper"]
    db.close()


def test_downgrade_to_nothing_and_back(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'round_trip.db'}")
    upgrade(engine)
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    engine.dispose()


def test_the_scripts_ship_as_python_packages() -> None:
    # setup.py collects folders with an __init__.py: both migration folders must have one.
    assert (MIGRATIONS / "__init__.py").exists()
    assert (MIGRATIONS / "versions" / "__init__.py").exists()
    assert (MIGRATIONS / "env.py").exists()
