"""One server per home (issue 23, item 3): a second `serve` on a home in use, on another port,
refuses in one line that names the holder, and changes nothing; before, it started on the same
database and voided the first server's running one-off match within seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from kingmaker.ladder.matches.history import match_summary
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.ladder.storage.models import MatchStatus
from kingmaker.server.app import KingmakerServer, ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.home import HomeInUse, HomeLock
from kingmaker.server.locations import claim_home, drop_claims, server_coming_up

SERVE = [sys.executable, "-m", "kingmaker.server.cli", "serve", "--address", "127.0.0.1:0"]


def serve_once(home: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`kingmaker serve` on ``home``, expected to refuse at once (killed if it starts instead)."""
    environment = {**os.environ, "KINGMAKER_HOME": str(home)}
    try:
        return subprocess.run([*SERVE, *extra], env=environment, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the second server started on a home already in use")


def test_a_second_server_on_a_home_in_use_refuses_and_voids_nothing(server: BackgroundServer) -> None:
    home = Path(os.environ["KINGMAKER_HOME"])
    registered = server.run(_register(server))
    ticket = create_match(server.server.db, "kingdoms", registered, seed=3)
    mark_running(server.server.db, ticket.match_id)  # a one-off match in play on the first server

    second = serve_once(home)

    assert second.returncode == 1
    said = [line for line in second.stderr.splitlines() if line.strip()]
    assert said == [
        f"error: another kingmaker server (pid {os.getpid()}, listening on {server.address}) is using "
        f"the home {home}: stop it first, or give this server a home of its own (KINGMAKER_HOME)"
    ]
    summary = match_summary(server.server.db, ticket.match_id)
    assert summary.status == MatchStatus.RUNNING, "the first server's match was not voided"


async def _register(server: BackgroundServer) -> list[str]:
    from kingmaker.ladder.bots.bots import register_bot

    for name in ("a", "b"):
        register_bot(server.server.db, name, ["kingdoms"])
    return ["a", "b"]


def test_two_homes_on_one_sqlite_database_are_one_server_too(tmp_path: Path) -> None:
    database = tmp_path / "shared.db"
    first = HomeLock(tmp_path / "one", f"sqlite:///{database}")
    first.acquire()
    try:
        second = serve_once(tmp_path / "two", "--database-url", f"sqlite:///{database}")
    finally:
        first.release()
    assert second.returncode == 1
    assert f"is using the database {database}:" in second.stderr
    assert not (tmp_path / "two" / "admin-token").exists(), "nothing was made in the refused home"


def test_two_homes_on_one_postgresql_database_are_one_server_too(tmp_path: Path, postgres_url: str) -> None:
    first = HomeLock(tmp_path / "one", postgres_url)
    first.acquire()
    engine = create_engine(postgres_url)
    try:
        first.hold_database(engine)
        first.record("127.0.0.1:5000")
        second = HomeLock(tmp_path / "two", postgres_url)
        second.acquire()  # another home: that lock is free
        with pytest.raises(HomeInUse) as refused:
            second.hold_database(engine)
        assert str(refused.value).startswith(
            f"another kingmaker server (pid {os.getpid()}, listening on 127.0.0.1:5000) is using the "
            "database postgresql"
        )
        assert "give this server a database of its own (--database-url)" in str(refused.value)
        first.release()
        second.hold_database(engine)  # free once its holder let go
        second.release()
    finally:
        first.release()
        engine.dispose()


def test_a_second_server_on_a_postgresql_database_in_use_refuses_and_voids_nothing(
    tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "one"))
    first = BackgroundServer(ServerConfig(address="127.0.0.1:0", database_url=postgres_url))
    try:
        registered = first.run(_register(first))
        ticket = create_match(first.server.db, "kingdoms", registered, seed=3)
        mark_running(first.server.db, ticket.match_id)

        second = serve_once(tmp_path / "two", "--database-url", postgres_url)

        assert second.returncode == 1
        said = [line for line in second.stderr.splitlines() if line.strip()]
        assert (
            len(said) == 1
            and f"(pid {os.getpid()}, listening on {first.address}) is using the database" in said[0]
        )
        url = make_url(postgres_url)
        assert first.server.db.url in said[0], "the database is named as its server's start line names it"
        assert not url.password or str(url.password) not in said[0], "the password is not shown"
        assert match_summary(first.server.db, ticket.match_id).status == MatchStatus.RUNNING
        assert not (tmp_path / "two" / "admin-token").exists(), "nothing was made in the refused home"
    finally:
        first.stop()


def test_the_home_is_free_again_once_its_server_stops_however_it_stops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("KINGMAKER_HOME", str(home))
    killed = subprocess.Popen(SERVE, stdout=subprocess.PIPE, text=True)
    try:
        assert killed.stdout is not None
        deadline = time.monotonic() + 120
        while "serving on" not in killed.stdout.readline():
            assert killed.poll() is None and time.monotonic() < deadline, "the server did not start"
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
    # A killed server leaves its lock file, never its lock: the next server starts.
    config = ServerConfig(address="127.0.0.1:0")
    first = BackgroundServer(config)
    try:
        with pytest.raises(HomeInUse):
            KingmakerServer(config)  # held by the first, in this very process
    finally:
        first.stop()
    BackgroundServer(config).stop()  # stopped: free again


def test_a_command_knows_a_server_of_its_home_is_still_coming_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`kingmaker serve &` then `kingmaker bot add ...` at once: the command waits for a server
    that holds the home (starting, or bound to the address it calls) longer than for no server."""
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    assert not server_coming_up("127.0.0.1:5000"), "no lock file"
    lock = HomeLock(tmp_path / "home", f"sqlite:///{tmp_path / 'home' / 'k.db'}")
    lock.acquire()
    try:
        assert server_coming_up("127.0.0.1:5000"), "held while the server starts"
        lock.record("127.0.0.1:5000")
        assert server_coming_up("127.0.0.1:5000")
        assert not server_coming_up("127.0.0.1:6000"), "another address: not that server"
    finally:
        lock.release()
    assert not server_coming_up("127.0.0.1:5000"), "a stopped server's lock file holds no lock"


def test_serve_holds_its_home_as_starting_before_it_imports_the_server(tmp_path: Path) -> None:
    """Importing the server takes many seconds on a loaded machine: a command run right after
    `kingmaker serve &` must find the home held ("starting") all that time, not an empty home."""
    watch = (
        "import importlib.abc, runpy, sys\n"
        "from kingmaker.server.locations import server_coming_up\n"
        "class Watch(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'kingmaker.server.app':\n"
        "            sys.meta_path.remove(self)\n"
        "            print('held when the server is imported:', server_coming_up('nowhere'), flush=True)\n"
        "sys.meta_path.insert(0, Watch())\n"
        "runpy.run_module('kingmaker.server.cli', run_name='__main__')\n"
    )
    environment = {**os.environ, "KINGMAKER_HOME": str(tmp_path / "home")}
    command = [sys.executable, "-c", watch, *SERVE[3:]]
    serving = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, text=True)
    try:
        assert serving.stdout is not None
        said = serving.stdout.readline()
    finally:
        serving.terminate()
        serving.wait(60)
    assert said == "held when the server is imported: True\n"


def test_a_home_taken_early_is_the_servers_once_it_starts_or_free_if_it_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    claim_home()
    assert server_coming_up("127.0.0.1:5000"), "taken early, as starting"
    drop_claims()  # the server failed to start
    assert not server_coming_up("127.0.0.1:5000"), "let go"
    claim_home()
    lock = HomeLock(tmp_path / "home", f"sqlite:///{tmp_path / 'home' / 'k.db'}")
    lock.acquire()  # the server adopts it: no HomeInUse from its own early hold
    try:
        drop_claims()  # (serve's last step) leaves the server's hold alone
        lock.record("127.0.0.1:5000")
        assert server_coming_up("127.0.0.1:5000")
        with pytest.raises(HomeInUse):
            HomeLock(tmp_path / "home", f"sqlite:///{tmp_path / 'home' / 'k.db'}").acquire()
    finally:
        lock.release()
    assert not server_coming_up("127.0.0.1:5000")


def test_a_released_database_is_free_before_its_session_ends(tmp_path: Path, postgres_url: str) -> None:
    # PostgreSQL ends a closed connection's session in its backend, after the client has gone on:
    # a lock left for the session's end was still held when the next server asked (a full run).
    # Here the session outlives the release outright (its close is held back until the end).
    first = HomeLock(tmp_path / "one", postgres_url)
    first.acquire()
    engine = create_engine(postgres_url)
    held_back: list[Callable[[], None]] = []
    try:
        first.hold_database(engine)
        assert first._database is not None
        connection = first._database[1]
        held_back.append(connection.close)
        connection.close = lambda: None  # type: ignore[method-assign]
        first.release()
        second = HomeLock(tmp_path / "two", postgres_url)
        second.acquire()
        second.hold_database(engine)  # free though the first session lives on
        second.release()
    finally:
        first.release()
        for close in held_back:
            close()
        engine.dispose()
