"""Fixtures that run a test against SQLite and against PostgreSQL (a real server).

``database_url`` is parametrized: ``[sqlite]`` gives a file in the test's folder, ``[postgresql]``
a fresh migrated database in the session's PostgreSQL server. That server is the one at
``$KINGMAKER_TEST_POSTGRES_URL`` (an admin URL: the tests create databases in it; ``.ci/run``
starts one and sets it), else one this session starts (``postgres_server.py``) and always stops.
Where PostgreSQL cannot be had, its tests skip, except under CI (``CI`` set), where they fail:
CI must never pass with the PostgreSQL half of the suite skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres_server import Databases, PostgresServer, PostgresUnavailable

BACKENDS = ("sqlite", "postgresql")
URL_VARIABLE = "KINGMAKER_TEST_POSTGRES_URL"


@pytest.fixture(scope="session")
def postgres() -> Iterator[Databases]:
    """Where the tests make their PostgreSQL databases, for the whole session."""
    given = os.environ.get(URL_VARIABLE)
    if given:
        databases = Databases(given)
        try:
            yield databases
        finally:
            databases.drop_all()
        return
    server: PostgresServer | None = None
    try:
        server = PostgresServer()
        server.start()
    except PostgresUnavailable as error:
        if server is not None:
            server.stop()
        if os.environ.get("CI"):
            pytest.fail(f"CI needs PostgreSQL and it could not start: {error}", pytrace=False)
        pytest.skip(f"no PostgreSQL server here ({str(error).splitlines()[0]})")
    try:
        yield Databases(server.url())
    finally:
        server.stop()


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty ladder database: an SQLite file (not created yet), or a migrated PostgreSQL
    database (emptied again after the test, for the next one)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ladder.db'}"
        return
    databases: Databases = request.getfixturevalue("postgres")
    url = databases.new_database()
    yield url
    databases.give_back(url)


@pytest.fixture
def postgres_url(postgres: Databases) -> Iterator[str]:
    """A migrated, empty PostgreSQL database, for a test of PostgreSQL's own behaviour."""
    url = postgres.new_database()
    yield url
    postgres.give_back(url)


@pytest.fixture
def ladder_url(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """``database_url``, also made the default of every server the test starts (through
    ``$KINGMAKER_DATABASE_URL``), so a server-level test runs on both databases."""
    monkeypatch.setenv("KINGMAKER_DATABASE_URL", database_url)
    return database_url
