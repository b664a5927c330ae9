"""What the website tests share: one headless Chromium per test module, and a server that
referees in a worker process with its website inside."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_live_boards import Site
from web_support import start_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    driver = start_chromium()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def worker_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    """A server refereeing in a worker process, its website inside (live boards), on loopback."""
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    running = Site(tmp_path, "processes")
    try:
        yield running
    finally:
        running.stop()
