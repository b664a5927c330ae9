"""Fixtures of the competition stories: a clock file the server's competition clock reads (set
before the server starts), and a server that reads it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kingmaker.ladder.competitions.competition_clock import CLOCK_FILE_ENV, set_offset
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.deadlines import TimeControl


@pytest.fixture
def clock_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The competition clock's offset (0 s to begin with); a test moves time by rewriting it."""
    path = tmp_path / "clock-offset"
    set_offset(path, 0)
    monkeypatch.setenv(CLOCK_FILE_ENV, str(path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no stored login is used
    return path


@pytest.fixture
def competition_server(kingmaker_home: Path, clock_file: Path) -> Iterator[BackgroundServer]:
    control = TimeControl(decision_ms=2000, max_strikes=3)
    running = BackgroundServer(
        ServerConfig(address="127.0.0.1:0", time_control=control, connect_timeout=30.0)
    )
    try:
        yield running
    finally:
        running.stop()
