"""A server's claims and results are written in one thread of its own, never two at once: in
asyncio's default executor they ran in up to four threads together, each wanting the GIL while
the others ran (docs/scaling.md, "One thread for the database's writes")."""

from __future__ import annotations

import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.refereeing import result_writer
from kingmaker.server.scheduling import scheduler

NAMES = [f"bot-{i}" for i in range(4)]
INSTANT = [sys.executable, "-m", "kingmaker.sample_bots.instant_bot"]


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BackgroundServer]:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    config = ServerConfig(address="127.0.0.1:0", jail=False, executor="local", concurrency=3)
    running = BackgroundServer(config)
    try:
        yield running
    finally:
        running.stop()


def test_claims_and_results_are_written_in_one_thread_one_at_a_time(
    server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    calls: Counter[str] = Counter()
    inside = 0
    overlaps = 0
    lock = threading.Lock()

    def watched(write: Callable[..., Any], kind: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            nonlocal inside, overlaps
            with lock:
                inside += 1
                overlaps += inside > 1
                threads.append(threading.current_thread().name)
                calls[kind] += 1
            try:
                return write(*args, **kwargs)
            finally:
                with lock:
                    inside -= 1

        return call

    monkeypatch.setattr(scheduler, "claim_with_entrants", watched(scheduler.claim_with_entrants, "claim"))
    monkeypatch.setattr(result_writer, "finish_matches", watched(result_writer.finish_matches, "result"))
    db = server.server.db
    for name in NAMES:
        bots.register_bot(db, name, ["kingdoms"], command=INSTANT)
    leagues.create_league(db, "one-writer", "kingdoms", NAMES, rounds=2, seed=3)

    async def run() -> None:
        async for _ in server.server.leagues.watch("one-writer", 3):
            pass

    server.run(run())
    # 12 matches: claimed and stored in a few calls each (results that arrive together are one batch)
    assert calls["claim"] >= 2 and calls["result"] >= 2, calls
    assert len(set(threads)) == 1 and threads[0].startswith("database-writes"), set(threads)
    assert overlaps == 0
