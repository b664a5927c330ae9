"""A long-running server keeps no more per match than it did after its first league: what it holds
for its bots, sessions, tasks and threads is counted after a warm-up league and again after more
matches, and the counts are the same; what it keeps per match on purpose is capped (unstored
matches, the codec's packed actions). Counts, not megabytes: `bench/suite.py memory` measures
those."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.sdk.codec import PACKED_ACTIONS_KEPT, codec_for
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.refereeing import archive
from kingmaker.server.refereeing.archive import MemoryArchive
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.seats.roster import KEPT_PER_BOT

INSTANT = [sys.executable, "-m", "kingmaker.sample_bots.instant_bot"]
NAMES = [f"bot-{i}" for i in range(4)]


@pytest.fixture
def local_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BackgroundServer]:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    config = ServerConfig(
        address="127.0.0.1:0",
        database_url=f"sqlite:///{tmp_path / 'k.db'}",
        admin_token="t",
        jail=False,
        executor="local",
        concurrency=4,
    )
    server = BackgroundServer(config)
    for name in NAMES:
        bots.register_bot(server.server.db, name, ["kingdoms"], command=INSTANT)
    try:
        yield server
    finally:
        server.stop()


def play(server: BackgroundServer, name: str, rounds: int) -> None:
    leagues.create_league(server.server.db, name, "kingdoms", NAMES, rounds=rounds, seed=len(name))

    async def run() -> None:
        async for _ in server.server.leagues.watch(name, 4):
            pass

    server.run(run())


STREAM_TASKS = {"_read", "_handle_exceptions", "_schedule_rpc_coro"}
"""The coroutines of a stream's tasks: the Arena's reader (``arena._read``) and what grpc.aio runs
each call in. A fixed pause for them once the sessions were gone (0.5 s) was the one step of this
count that a slow machine could outrun."""


def _stream_tasks() -> list[str]:
    """The names of the stream tasks running on this loop now."""
    names = (getattr(task.get_coro(), "__qualname__", "") for task in asyncio.all_tasks())
    return [name for name in names if name.rpartition(".")[2] in STREAM_TASKS]


def held(server: BackgroundServer) -> tuple[dict[str, int], int]:
    """What the server holds now, counted, once the idle processes it keeps for the next match
    (``Roster.keep_idle_s``: how many depends on how the matches fell) are stopped; and how many
    those were, which is bounded apart."""
    kingmaker = server.server
    roster = kingmaker.roster
    assert roster is not None
    kept = roster.kept()

    async def streams_open() -> set[str]:
        return set(_stream_tasks())

    # Each kept process has its stream open: if gRPC named its tasks otherwise, the wait below
    # would not see them, and would count too early again.
    assert not kept or server.run(streams_open()) == STREAM_TASKS, server.run(streams_open())
    server.run(roster.retire())

    async def settled() -> int:
        """The tasks left once every stopped process's stream has ended (they end as it goes):
        its session gone, and then its tasks (the stream's reader and gRPC's own task for the
        call) returned, which a loaded machine may take a while to get to."""
        for _ in range(600):
            if not kingmaker.pool.sessions and not _stream_tasks():
                break
            await asyncio.sleep(0.1)
        return len(asyncio.all_tasks())

    tasks = server.run(settled())
    counts = {
        "sessions": len(kingmaker.pool.sessions),
        "bot processes busy": len(roster._busy),
        "tasks": tasks,
        "unstored matches": len(kingmaker.archive),
        "database connections in use": kingmaker.db.engine.pool.checkedout(),  # type: ignore[attr-defined]
        # The codec remembers the action objects it packed: the engine's, which recur, not one
        # per action of every match played (as packing the logs once did).
        "action objects remembered": len(codec_for("kingdoms")._packed_same._found),
    }
    return counts, kept


def test_more_matches_leave_nothing_more_behind(local_server: BackgroundServer) -> None:
    play(local_server, "warm", rounds=1)  # every pool filled
    after_warm_up, _ = held(local_server)
    threads = threading.active_count()
    play(local_server, "longer", rounds=4)  # four times as many matches
    after, kept = held(local_server)
    assert after == after_warm_up
    assert 0 < kept <= KEPT_PER_BOT * len(NAMES), "idle processes are kept, a few a bot"
    # Threads come and go with the load, up to what asyncio's worker threads may number.
    assert threading.active_count() <= threads + min(32, (os.cpu_count() or 1) + 4)


def test_unstored_matches_are_kept_up_to_a_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = MemoryArchive(kept=3)
    reports = [report(f"m{i}") for i in range(5)]
    for one in reports:
        kept.add(one)
    assert len(kept) == 3
    assert kept.get("m0") is None and kept.get("m1") is None
    assert [r.match_id for r in kept.newest(None, 10)] == ["m4", "m3", "m2"]
    assert MemoryArchive().kept == archive.KEPT


def test_the_codec_keeps_a_bounded_number_of_packed_actions() -> None:
    codec = codec_for("kingdoms")
    state = codec.game.new(2, 1, {})
    for action in state.legal_actions(state.to_act()[0]):
        codec.pack_action(action)
    assert 0 < len(codec._packed_actions) <= PACKED_ACTIONS_KEPT


def report(match_id: str) -> MatchReport:
    return MatchReport(
        match_id=match_id, game="kingdoms", edition="e", seed=1, options={}, seats=(), decisions=(),
        observation_digests=(), started_at=0.0, finished_at=0.0, result=None,
    )  # fmt: skip
