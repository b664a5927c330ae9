"""What the website tests share: one headless Chromium per test process, and a server that
referees in a worker process with its website inside."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_live_boards import Site
from web_support import start_chromium


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One Chromium per test process: a start costs about 2 CPU-s (its browser, GPU and renderer
    processes), and some ten modules here use one."""
    driver = start_chromium()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def browser(chromium: Any) -> Any:
    """The shared Chromium, on a blank page with no cookie of the last module's site (each site
    is a server of its own, on a port an earlier one may have had)."""
    chromium.get("about:blank")
    chromium.execute_cdp_cmd("Network.clearBrowserCookies", {})  # every site's, not the page's
    return chromium


@pytest.fixture
def worker_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Site]:
    """A server refereeing in a worker process, its website inside (live boards), on loopback."""
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    running = Site(tmp_path, "processes")
    try:
        yield running
    finally:
        running.stop()
