"""A new SQLite database gets the migrated schema as a copy, not by running every migration again.

Nearly every test starts a server or opens a ladder in a folder of its own, and a server's
start-up was almost all migrations: 21 of them on an empty database, some 0.3 s of CPU each
time, about a tenth of the suite on two cores. So in each test process the migrations run
once, for real, into a template file, and an empty SQLite database that ``Database.upgrade``
is asked to migrate gets the template's pages instead (SQLite's backup API: the same schema,
byte for byte, with the alembic revision in it).

What is left as it was: a database that is not empty (an older revision still runs its
migrations), PostgreSQL (``database_fixtures.py`` has its own template), servers run as
separate processes, and ``migrate.upgrade`` itself, which the migration tests call directly
(tests/ladder/test_ladder_migrations.py): those still migrate empty databases step by step."""

from __future__ import annotations

import atexit
import shutil
import sqlite3
import tempfile
import threading
from pathlib import Path

import pytest
from sqlalchemy import Engine

from kingmaker.ladder.storage.db import Database, open_database

_real_upgrade = Database.upgrade
_template: Path | None = None
_making = threading.Lock()  # (servers in threads may start at once)


def _template_file() -> Path:
    global _template
    with _making:
        if _template is not None:
            return _template
        folder = Path(tempfile.mkdtemp(prefix="kingmaker-migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        made = open_database(f"sqlite:///{folder / 'template.db'}", upgrade=False)
        try:
            _real_upgrade(made)
        finally:
            made.close()
        _template = folder / "template.db"
        return _template


def _is_empty_sqlite_file(engine: Engine) -> bool:
    if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
        return False
    with engine.connect() as connection:
        return not connection.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar()


def _upgrade(self: Database) -> None:
    if not _is_empty_sqlite_file(self.engine):
        _real_upgrade(self)
        return
    template = sqlite3.connect(_template_file())
    raw = self.engine.raw_connection()
    try:
        template.backup(raw.driver_connection)
    finally:
        raw.close()
        template.close()


def pytest_configure(config: pytest.Config) -> None:
    Database.upgrade = _upgrade  # type: ignore[method-assign]
