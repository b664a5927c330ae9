"""Every league test runs twice: on SQLite and on PostgreSQL (see tests/database_fixtures.py).

The servers these tests start take their database from ``$KINGMAKER_DATABASE_URL``; the
tests that open the database themselves use ``ladder_url``."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def ladder_url(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The database every server of this test uses (and the test, to check what they wrote)."""
    monkeypatch.setenv("KINGMAKER_DATABASE_URL", database_url)
    return database_url
