"""`serve --executor processes`: leagues refereed in local worker processes, so a server uses more
than one core. The same seeds give the same matches as the in-process referee; a worker that dies
mid-league costs only replays; stopping the server leaves no worker behind."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kingmaker.ladder import bots, history, leagues
from kingmaker.ladder.matches import match_log
from kingmaker.ladder.models import MatchStatus
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer, ServerProcess
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.process_executor import ProcessExecutor
from kingmaker.server.sandbox import bubblewrap

INSTANT = [sys.executable, "-m", "kingmaker.sample_bots.instant_bot"]
RANDOM = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]


def start(folder: Path, executor: str) -> BackgroundServer:
    config = ServerConfig(
        address="127.0.0.1:0",
        database_url=f"sqlite:///{folder / f'{executor}.db'}",
        admin_token="t",
        jail=False,
        executor=executor,
        workers=2,
        concurrency=4,
        time_control=TimeControl(decision_ms=2000),
    )
    return BackgroundServer(config)


@pytest.fixture
def workers_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BackgroundServer]:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    server = start(tmp_path, "processes")
    try:
        yield server
    finally:
        server.stop()


def play_league(server: BackgroundServer, command: list[str], rounds: int = 2) -> list[history.MatchSummary]:
    """Play a league of 4 bots to its end; every match of it, replays and void ones included."""
    db = server.server.db
    names = [f"bot-{i}" for i in range(4)]
    for name in names:
        bots.register_bot(db, name, ["kingdoms"], command=command)
    leagues.create_league(db, "l", "kingdoms", names, players=2, rounds=rounds, seed=3)

    async def run() -> None:
        async for _ in server.server.leagues.watch("l", 4):
            pass

    server.run(run())
    return history.list_matches(db, league="l", limit=1000)


def outcomes(server: BackgroundServer, matches: list[history.MatchSummary]) -> set[tuple[object, ...]]:
    """Per finished match: its seed, its bots, every decision and the final scores."""
    db = server.server.db
    return {
        (m.seed, m.bots, tuple(map(str, match_log(db, m.match_id).actions)), tuple(s.score for s in m.seats))
        for m in matches
        if m.status == MatchStatus.FINISHED
    }


def workers_of(server: BackgroundServer) -> ProcessExecutor:
    executor = server.server.executor
    assert isinstance(executor, ProcessExecutor)
    return executor


def test_workers_referee_the_same_matches_as_the_server_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers_server: BackgroundServer
) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    executor = workers_of(workers_server)
    assert len(executor.pids()) == 2
    with_workers = outcomes(workers_server, play_league(workers_server, INSTANT))
    assert sum(worker.played for worker in executor.workers) == 12, "the workers refereed every match"
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home-of-the-local-server"))  # one server a home
    local = start(tmp_path, "local")
    try:
        in_process = outcomes(local, play_league(local, INSTANT))
    finally:
        local.stop()
    assert len(with_workers) == 12
    assert with_workers == in_process


def test_a_worker_that_dies_mid_league_costs_only_replays_and_is_replaced(
    workers_server: BackgroundServer,
) -> None:
    executor = workers_of(workers_server)
    victim = executor.workers[0].process

    async def kill_when_busy() -> None:
        while not executor.workers[0].pending:  # the first worker's first match
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.05)
        os.kill(victim.pid, signal.SIGKILL)

    killer = asyncio.run_coroutine_threadsafe(kill_when_busy(), workers_server.loop)
    matches = play_league(workers_server, RANDOM, rounds=4)
    killer.result(10)
    assert victim.returncode is not None, "the worker was killed"
    finished = [m for m in matches if m.status == MatchStatus.FINISHED]
    voided = [m for m in matches if m.status == MatchStatus.VOID]
    assert len(finished) == 24  # every planned match (the lost ones played again)
    assert voided and all("worker process exited" in (m.status_reason or "") for m in voided)
    # Another worker took the lost one's place.
    assert executor.replaced == 1
    assert len(executor.pids()) == 2 and victim.pid not in executor.pids()


def test_stopping_the_server_stops_its_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    server = start(tmp_path, "processes")
    pids = workers_of(server).pids()
    server.stop()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in pids)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"


def test_admission_control_sees_a_worker_that_falls_behind(workers_server: BackgroundServer) -> None:
    """A worker whose loop stops (here the whole process, for 0.6 s) holds new matches back as the
    server's own lagging loop would, and the lag shows in what `league status` reports; once it
    runs again, matches start again."""
    executor = workers_of(workers_server)
    admission = workers_server.server.admission
    assert admission is not None

    def settles(held: bool) -> bool:
        deadline = time.monotonic() + 10
        while (admission.allowed(4, 1) == 0) != held and time.monotonic() < deadline:
            time.sleep(0.05)
        return (admission.allowed(4, 1) == 0) == held

    assert settles(held=False)
    victim = executor.workers[0].process.pid
    os.kill(victim, signal.SIGSTOP)
    try:
        time.sleep(0.6)
        assert executor.lag_ms() >= 300
        assert admission.recent_ms() >= 300
        assert admission.allowed(4, 1) == 0 and admission.allowed(4, 0) == 1
    finally:
        os.kill(victim, signal.SIGCONT)
    assert settles(held=False)


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


@pytest.mark.parametrize("ending", ["SIGTERM", "SIGKILL"])
def test_serve_with_worker_processes_says_so_and_its_workers_end_with_it(tmp_path: Path, ending: str) -> None:
    """`serve --executor processes` names its workers; stopped, or killed outright, the server
    leaves none running (a worker reads the end of its orders and stops its bots and itself)."""
    server = ServerProcess(
        tmp_path / "home",
        tmp_path / "s.sock",
        tmp_path / "k.db",
        "t",
        ["--executor", "processes", "--workers", "2"],
    )
    try:
        deadline = time.monotonic() + 30
        while len(workers := _children(server.process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(workers) == 2
        server.process.send_signal(getattr(signal, ending))
        server.process.wait(timeout=60)
        output = server.process.stdout.read().decode() if server.process.stdout else ""
        if ending == "SIGTERM":
            assert "refereed in 2 worker processes" in output
        deadline = time.monotonic() + 30
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers)
    finally:
        server.kill()


def test_workers_follow_allow_unjailed_where_no_jail_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no jail on the machine, `serve --allow-unjailed` runs managed bots anyway: so must
    its workers (they would refuse every bot, and every match would be void and replayed)."""
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KINGMAKER_BWRAP", "none")
    bubblewrap.cache_clear()  # probed afresh here, and again after (the real answer)
    config = ServerConfig(
        address="127.0.0.1:0",
        database_url=f"sqlite:///{tmp_path / 'k.db'}",
        admin_token="t",
        allow_unjailed=True,
        executor="processes",
        workers=1,
    )
    server = BackgroundServer(config)
    try:
        matches = play_league(server, INSTANT, rounds=1)
        reasons = [m.status_reason for m in matches]
        assert matches and all(m.status == MatchStatus.FINISHED for m in matches), reasons
    finally:
        server.stop()
        bubblewrap.cache_clear()
