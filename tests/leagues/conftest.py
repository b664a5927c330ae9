"""Every league test runs twice: on SQLite and on PostgreSQL (see tests/database_fixtures.py).

The servers these tests start take their database from ``$KINGMAKER_DATABASE_URL``; a test that
opens the database itself asks for ``ladder_url``."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _on_both_databases(ladder_url: str) -> None:
    """Every test here, once per database."""
