"""Managed bots stay started between leagues: a league's end does not stop them, so the next league
of the same bots (or a ladder's next round) starts almost none; each worker keeps a bounded number
idle, and no more than the machine's most in all (stopping the one idle longest to keep another),
stops them once idle for the server's keep time, and stops a bot's at once where it must (an edit,
a disable, the server stopping). Launches are counted by the bots themselves: each writes
its name and pid to a file as it starts."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from proc_stat import alive

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.roster import KEPT_PER_BOT
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

NAMES = [f"bot-{i}" for i in range(8)]
AT_ONCE = 4
WORKERS = 2
STARTING = (
    "import os, runpy, sys; name, log = sys.argv[1:3]; open(log, 'a').write(f'{name} {os.getpid()}\\n');"
    " sys.argv = sys.argv[:1]; runpy.run_module('kingmaker.sample_bots.instant_bot', run_name='__main__')"
)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "launches.txt"


def start(folder: Path, log: Path, keep_bots_s: float, keep_bots_max: int = 64) -> BackgroundServer:
    config = ServerConfig(
        address="127.0.0.1:0",
        database_url=f"sqlite:///{folder / 'k.db'}",
        admin_token="t",
        jail=False,  # the bots write their launches to a file here
        executor="processes",
        workers=WORKERS,
        concurrency=AT_ONCE,
        keep_bots_s=keep_bots_s,
        keep_bots_max=keep_bots_max,
    )
    server = BackgroundServer(config)
    for name in NAMES:
        command = [sys.executable, "-c", STARTING, name, str(log)]
        bots.register_bot(server.server.db, name, ["kingdoms"], command=command)
    return server


@pytest.fixture
def kept_long(tmp_path: Path, log: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BackgroundServer]:
    """Bots kept for 10 minutes: only what is told to stop them stops them during a test."""
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    server = start(tmp_path, log, keep_bots_s=600.0)
    try:
        yield server
    finally:
        server.stop()


def play(server: BackgroundServer, name: str) -> None:
    leagues.create_league(server.server.db, name, "kingdoms", NAMES, rounds=1, seed=len(name))

    async def run() -> None:
        async for _ in server.server.leagues.watch(name, AT_ONCE):
            pass

    server.run(run())


def launches(log: Path) -> list[tuple[str, int]]:
    """Every bot process started so far: (bot, pid)."""
    lines = log.read_text().split("\n") if log.exists() else []
    return [(name, int(pid)) for name, pid in (line.split() for line in lines if line)]


def running(log: Path) -> list[tuple[str, int]]:
    return [(name, pid) for name, pid in launches(log) if alive(pid)]


def settles(check: object, seconds: float = 60.0) -> bool:
    """Whether ``check()`` comes true within a generous while (the machine may be loaded)."""
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.1)
    return bool(check())  # type: ignore[operator]


def test_a_second_league_of_the_same_bots_finds_them_started(kept_long: BackgroundServer, log: Path) -> None:
    """Before, every league's end stopped its bots (the next one started them all again, 20 of 8
    bots' processes here), and a match went to the least busy worker whether its bots were warm
    there or in the other, with a round robin's first bot seated in match after match at once."""
    play(kept_long, "first")
    first = len(launches(log))
    assert first >= len(NAMES), "every bot was started"
    play(kept_long, "second")
    second = len(launches(log)) - first
    # A bot may be started again only where a worker was far busier than the other.
    assert second <= len(NAMES) // 2, f"{second} bot processes started for a league of bots kept started"
    assert first + second <= len(NAMES) * WORKERS * KEPT_PER_BOT
    still = running(log)
    assert still, "the bots are kept after the league"
    per_bot = {name: sum(1 for other, _ in still if other == name) for name in NAMES}
    assert max(per_bot.values()) <= WORKERS * KEPT_PER_BOT, per_bot


def test_editing_or_disabling_a_bot_stops_its_kept_processes_in_every_worker(
    kept_long: BackgroundServer, log: Path
) -> None:
    play(kept_long, "warm")
    edited, disabled = NAMES[0], NAMES[1]
    assert {name for name, _ in running(log)} >= {edited, disabled}
    with grpc.insecure_channel(kept_long.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        metadata = (("authorization", "Bearer t"),)
        command = admin_pb2.BotCommand(argv=[sys.executable, "-c", STARTING, edited, str(log), "edited"])
        admin.EditBot(admin_pb2.EditBotRequest(name=edited, command=command), metadata=metadata)
        admin.SetBotEnabled(admin_pb2.SetBotEnabledRequest(name=disabled, enabled=False), metadata=metadata)
    assert settles(lambda: not {edited, disabled} & {name for name, _ in running(log)})
    others = {name for name, _ in running(log)}
    assert others == set(NAMES) - {edited, disabled}, "the other bots' processes are kept"


def test_a_machine_keeps_no_more_idle_bots_than_its_most(
    tmp_path: Path, log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ladder of many bots kept one or two processes of every bot that had played lately, each a
    program in memory; now the machine keeps at most ``keep_bots_max`` (here 4: 2 per worker)."""
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    server = start(tmp_path, log, keep_bots_s=600.0, keep_bots_max=4)
    try:
        play(server, "many")
        assert len({name for name, _ in launches(log)}) == len(NAMES)
        assert settles(lambda: len(running(log)) <= 4), running(log)
        assert running(log), "the most recent are kept"
    finally:
        server.stop()


def test_kept_bots_stop_once_idle_for_the_keep_time(
    tmp_path: Path, log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    server = start(tmp_path, log, keep_bots_s=1.0)
    try:
        play(server, "short")
        assert launches(log)
        assert settles(lambda: not running(log)), "every idle bot stopped after its keep time"
    finally:
        server.stop()


def test_stopping_the_server_stops_the_kept_bots(
    tmp_path: Path, log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    server = start(tmp_path, log, keep_bots_s=600.0)
    try:
        play(server, "last")
        assert running(log), "the bots are kept after the league"
    finally:
        server.stop()
    assert settles(lambda: not running(log)), "none outlives the server"
