"""The suite's shortcut (tests/migrated_once.py) gives a new SQLite database exactly what the
migrations give it: the same tables, indexes and revision, and a database that works."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import migrated_once

from kingmaker.ladder.bots.bots import get_bot, register_bot
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.ladder.storage.migrate import current_revision, head_revision, upgrade


def schema(path: Path) -> list[tuple[str, str, list[str]]]:
    """Each table's and index's definition, its lines in sorted order: the migrations themselves
    write a recreated table's constraints in an order that differs from run to run."""
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name")
        return [
            (kind, name, sorted(line.strip(" \t,") for line in (sql or "").splitlines()))
            for kind, name, sql in rows
        ]


def test_a_copied_schema_is_the_migrated_one(tmp_path: Path) -> None:
    assert Database.upgrade is migrated_once._upgrade, "the suite copies the migrated schema"
    migrated = open_database(f"sqlite:///{tmp_path / 'migrated.db'}", upgrade=False)
    upgrade(migrated.engine)  # every migration, step by step
    copied = open_database(f"sqlite:///{tmp_path / 'copied.db'}")  # (through the shortcut)
    try:
        assert current_revision(copied.engine) == current_revision(migrated.engine) == head_revision()
        assert schema(tmp_path / "copied.db") == schema(tmp_path / "migrated.db")
        with copied.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        register_bot(copied, "copied", ["kingdoms"], ["true"])
        assert get_bot(copied, "copied").name == "copied"
    finally:
        migrated.close()
        copied.close()
