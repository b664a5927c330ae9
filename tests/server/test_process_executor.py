"""`serve --executor processes`: leagues refereed in local worker processes, so a server uses more
than one core. The same seeds give the same matches as the in-process referee; a worker that dies
mid-league costs only replays; stopping the server leaves no worker behind."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from proc_stat import alive
from typer.testing import CliRunner

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches import history
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.storage.models import MatchStatus
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer, ServerProcess
from kingmaker.server.cli import app
from kingmaker.server.execution.executors import LocalExecutor, default_executor, usable_cores
from kingmaker.server.execution.match_host import HostSettings
from kingmaker.server.execution.process_executor import ProcessExecutor, _Warm, _Worker
from kingmaker.server.jail.sandbox import bubblewrap
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Roster
from kingmaker.server.seats.sessions import SessionPool

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
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in pids)


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
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in workers)
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


def test_league_status_shows_what_each_worker_is_doing(workers_server: BackgroundServer) -> None:
    """`league status` (GetLeague) lists the server's workers: the matches each has in play while
    a league runs, its loop lag, and the matches each refereed, which add up to the league's."""
    executor = workers_of(workers_server)
    db = workers_server.server.db
    names = [f"bot-{i}" for i in range(4)]
    for name in names:
        bots.register_bot(db, name, ["kingdoms"], command=INSTANT)
    leagues.create_league(db, "busy", "kingdoms", names, players=2, rounds=2, seed=5)
    in_play: list[int] = []

    async def run() -> None:
        async for _ in workers_server.server.leagues.watch("busy", 4):
            in_play.append(sum(load.in_play for load in executor.loads()))

    workers_server.run(run())
    assert max(in_play) >= 1, "matches were seen in play on the workers"
    runner = CliRunner()
    shown = runner.invoke(
        app, ["league", "status", "busy", "--json", "--server", workers_server.address, "--admin-token", "t"]
    )
    assert shown.exit_code == 0, shown.stderr
    workers = json.loads(shown.stdout)["workers"]
    assert sorted(int(worker["pid"]) for worker in workers) == sorted(executor.pids())
    assert sum(int(worker.get("matches_done", 0)) for worker in workers) == 12
    assert all(int(worker.get("in_play", 0)) == 0 for worker in workers)  # the league is over
    text = runner.invoke(
        app, ["league", "status", "busy", "--server", workers_server.address, "--admin-token", "t"]
    ).stdout
    assert "the server's 2 worker processes" in text
    assert all(str(pid) in text for pid in executor.pids())


def test_a_server_without_workers_lists_none(server: BackgroundServer) -> None:
    db = server.server.db
    bots.register_bot(db, "a", ["kingdoms"])
    bots.register_bot(db, "b", ["kingdoms"])
    leagues.create_league(db, "quiet", "kingdoms", ["a", "b"], players=2, seed=1)
    shown = CliRunner().invoke(app, ["league", "status", "quiet", "--server", server.address])
    assert shown.exit_code == 0, shown.stderr
    assert "worker processes" not in shown.stdout


@pytest.mark.parametrize(
    ("cores", "expected"), [({0}, "local"), ({0, 1}, "processes"), ({0, 1, 2, 3}, "processes")]
)
def test_serve_referees_in_worker_processes_where_there_is_more_than_one_core(
    monkeypatch: pytest.MonkeyPatch, cores: set[int], expected: str
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: cores)
    assert usable_cores() == len(cores)
    assert default_executor() == expected


@pytest.mark.skipif(shutil.which("taskset") is None, reason="needs taskset (util-linux)")
@pytest.mark.parametrize("one_core", [True, False])
def test_serve_without_executor_takes_every_core_it_may_use(tmp_path: Path, one_core: bool) -> None:
    """Plain `serve` referees in one worker process per core it may run on, and in itself when it
    may run on one core only (here pinned to one with taskset)."""
    cores = 1 if one_core else usable_cores()
    pinned = ["taskset", "-c", str(min(os.sched_getaffinity(0)))] if one_core else []
    socket = tmp_path / "s.sock"
    command = [
        *pinned, sys.executable, "-m", "kingmaker.server.cli", "serve", "--address", f"unix:{socket}",
        "--database-url", f"sqlite:///{tmp_path / 'k.db'}", "--admin-token", "t",
    ]  # fmt: skip
    environment = {**os.environ, "KINGMAKER_HOME": str(tmp_path / "home")}
    process = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not socket.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert socket.exists(), "the server started"
        workers = _workers_of(process.pid, cores if cores > 1 else 0)
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=60)[0].decode()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if cores > 1:
        assert len(workers) == cores
        assert f"refereed in {cores} worker processes" in output
    else:
        assert workers == []
        assert "worker processes" not in output


def _workers_of(pid: int, expected: int) -> list[int]:
    """The server's worker processes once ``expected`` have started (or after a while, if not)."""
    deadline = time.monotonic() + (30 if expected else 2)
    while True:
        workers = [child for child in _children(pid) if b"process_worker" in _command_line(child)]
        if len(workers) >= expected > 0 or time.monotonic() > deadline:
            return workers
        time.sleep(0.05)


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # it has exited meanwhile
        return b""


def test_a_match_goes_where_its_bots_are_kept_unless_that_worker_is_far_busier() -> None:
    """Starting a bot's process costs ~0.2 s of CPU, several matches' refereeing: a match goes to
    the worker that keeps its bots idle, even a busier one, and elsewhere only when that one is far
    busier. Before, it went to the least busy worker, warm there or not."""
    executor = ProcessExecutor(2, HostSettings(), LocalExecutor(Roster(SessionPool(), "unused")))
    here, there = (_idle_worker() for _ in range(2))
    executor.workers = [here, there]
    now = time.monotonic()
    here.warm.give_back([1, 2], now)  # bots 1 and 2 played here and are idle
    here.playing, there.playing = 2, 1
    assert executor._pick([1, 2]) is here
    assert executor._pick([3, 4]) is there, "kept nowhere: the least busy"
    here.warm.take([1, 2], now)  # in play now: a match of theirs would start them again anywhere
    assert here.warm.starts([1, 2], now) == 2
    assert executor._pick([1, 2]) is there
    here.warm.give_back([1, 2], now)
    here.playing, there.playing = 3, 0
    assert executor._pick([1, 2]) is there, "3 matches against none: the idle worker takes it"
    assert here.warm.starts([1], now + HostSettings().keep_idle_s) == 1, "stopped after the keep time"


def _idle_worker() -> _Worker:
    """A worker as the executor sees it, alive, with no process behind it."""
    process = cast(Any, SimpleNamespace(returncode=None))
    listener = cast(Any, SimpleNamespace(done=lambda: False))
    return _Worker(
        process, cast(Any, None), cast(Any, None), _Warm(HostSettings().keep_idle_s), listener=listener
    )


def test_the_server_knows_a_worker_stops_its_longest_idle_bot_to_keep_another() -> None:
    """A worker keeps at most its share of the machine's ``keep_bots_max`` idle processes, and to
    keep one more stops the one idle longest: the server's picture of it does the same."""
    warm = _Warm(keep_s=60.0, most=3)
    warm.give_back([1], 0.0)
    warm.give_back([2], 1.0)
    warm.give_back([3], 1.5)
    assert warm.starts([1, 2, 3], 2.0) == 0
    warm.give_back([4], 2.0)  # a fourth: bot 1's, idle longest, is stopped
    assert warm.starts([1], 3.0) == 1 and warm.starts([2, 3, 4], 3.0) == 0
    warm.give_back([2], 3.0)  # bot 2's second: bot 2's first, idle longest now, makes room
    assert warm.starts([2], 4.0) == 0 and warm.starts([2, 2], 4.0) == 1
    assert warm.starts([3, 4], 4.0) == 0
    none = _Warm(keep_s=60.0, most=0)
    none.give_back([1, 2], 0.0)
    assert not none.idle and none.starts([1], 0.0) == 1


def test_the_workers_share_the_machines_most_idle_bots() -> None:
    executor = ProcessExecutor(
        3, HostSettings(keep_bots_max=64), LocalExecutor(Roster(SessionPool(), "unused"))
    )
    assert executor.settings.keep_bots_max == 22  # each worker its share, rounded up
