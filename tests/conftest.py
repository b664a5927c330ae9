"""Fixtures shared by the test folders: a real server on loopback, started and always stopped."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from database_fixtures import database_url, ladder_url, postgres, postgres_url  # noqa: F401  (SQLite and PostgreSQL)
from hypothesis import settings

from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.deadlines import TimeControl

# prerequisites: what a run lacks, said at its start, and each skip's fix at its end;
# cpu_per_test: what each test costs in CPU, when asked for (KINGMAKER_TEST_CPU);
# migrated_once: a new SQLite database gets the schema migrated once per test process, copied;
# kept_processes: the ``keeping_server`` fixture, a server that keeps a bot's process;
# suite_order: the tests that only compute are handed out last, to keep both cores busy to the end.
pytest_plugins = [
    "prerequisites",
    "compiled_once",
    "cpu_per_test",
    "migrated_once",
    "kept_processes",
    "suite_order",
]

# Property tests search at random on a developer's machine (and in bench/), but CI must not fail
# at random on a submission that did not touch a game: there every run tries the same examples
# (derandomize, no example database), so a failure in CI is a failure of that change.
# Neither has Hypothesis's deadline (200 ms an example): on a shared machine a test's examples
# take two to ten times as long at one moment as at another (a 24-minute run at load 30 failed
# test_compact_logs's timings property that way, its examples all right), and speed is
# measured in bench/, not by a test's clock.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile("dev", print_blob=True, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def kingmaker_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("KINGMAKER_HOME", str(home))
    monkeypatch.delenv("KINGMAKER_ADMIN_TOKEN", raising=False)
    monkeypatch.delenv("KINGMAKER_SERVER", raising=False)
    return home


@pytest.fixture
def server(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    """A real server on a free loopback port, with short deadlines so faults show quickly."""
    control = TimeControl(decision_ms=400, max_strikes=3)
    running = BackgroundServer(
        ServerConfig(address="127.0.0.1:0", time_control=control, connect_timeout=10.0)
    )
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def admin_server(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    """A real server for tests of the Admin API under many bots: admin token "admin", no jail, no
    league resumed, and hellos given all the time a crowd of them needs."""
    config = ServerConfig(
        address="127.0.0.1:0", admin_token="admin", jail=False, resume_leagues=False, hello_timeout=300
    )
    running = BackgroundServer(config)
    try:
        yield running
    finally:
        running.stop()
