"""Results you can trust, through a real server and real bot processes: no innocent bot is
faulted, no win is credited to a bot that never played, and no two matches deadlock."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.history import list_matches, match_summary
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.ratings import standings
from kingmaker.ladder.storage.db import open_database
from kingmaker.ladder.storage.models import MatchStatus
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.scheduling.rated import play_ticket
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.v1 import admin_pb2, admin_pb2_grpc


@contextmanager
def server_waiting(connect_timeout: float) -> Iterator[BackgroundServer]:
    config = ServerConfig(
        address="127.0.0.1:0", time_control=TimeControl(decision_ms=1000), connect_timeout=connect_timeout
    )
    running = BackgroundServer(config)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def quick_server(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    """A server that gives up on absent bots after 3 s, for tests of a bot that is absent."""
    with server_waiting(3.0) as running:
        yield running


@pytest.fixture
def patient_server(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    """A server that waits a minute for absent bots: long enough for two bot processes to start
    one after the other on a loaded machine (CI once took more than 3 s), and still short enough
    that a deadlock, which holds until the wait ends, fails the test instead of hanging it."""
    with server_waiting(60.0) as running:
        yield running


@contextmanager
def remote_bot(
    server: BackgroundServer, name: str, games: list[str], capacity: int = 1, offers: list[str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """Register a remote bot and run it as its own process until the block ends."""
    bots.register_bot(server.server.db, name, games)
    with connected_bot(server, name, offers or [], capacity) as process:
        yield process


@contextmanager
def connected_bot(
    server: BackgroundServer, name: str, offers: list[str], capacity: int = 1, pause: float = 0.0
) -> Iterator[subprocess.Popen[bytes]]:
    """Run a registered remote bot (with a fresh token) until the block ends; wait for its hello."""
    token = bots.rotate_token(server.server.db, name)
    bot_id = bots.get_bot(server.server.db, name).id
    argv = [
        sys.executable, "-m", "kingmaker.sample_bots.remote_random_bot", "--server", server.address,
        "--token", token, "--games", ",".join(offers), "--capacity", str(capacity), "--pause", str(pause),
    ]  # fmt: skip
    process = subprocess.Popen(argv, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while not any(s.identity.bot_id == bot_id for s in list(server.server.pool.sessions)):
            assert process.poll() is None, f"remote bot {name} exited with {process.returncode}"
            assert time.monotonic() < deadline, f"remote bot {name} did not connect"
            time.sleep(0.05)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def run_league(server: BackgroundServer, name: str, concurrency: int) -> str:
    reason = ""
    async for progress in server.server.leagues.watch(name, concurrency):
        reason = progress.reason
    return reason


def test_two_remote_bots_of_capacity_one_in_two_concurrent_matches_do_not_deadlock(
    patient_server: BackgroundServer,
) -> None:
    db = patient_server.server.db
    bots.register_bot(db, "x", ["kingdoms"])
    bots.register_bot(db, "y", ["kingdoms"])
    leagues.create_league(db, "one", "kingdoms", ["x", "y"], seed=1)
    leagues.create_league(db, "two", "kingdoms", ["y", "x"], seed=2)
    # Both matches wait for their bots, as when bots restart mid-league. Before the fix each seat
    # was leased on its own, so the first bot to connect could go to one match and the second to
    # the other; each match then held its bot while waiting for the other's, until both seats
    # ended NEVER_CONNECTED (a fault toward suspension) though both bots were connected.
    runs = []
    for name in ("one", "two"):
        league = run_league(patient_server, name, 1)
        runs.append(asyncio.run_coroutine_threadsafe(league, patient_server.loop))
        time.sleep(0.025)  # half the old lease poll: the two matches looked for bots out of step
    with connected_bot(patient_server, "x", ["kingdoms"]):
        time.sleep(0.3)
        with connected_bot(patient_server, "y", ["kingdoms"]):
            assert [run.result(timeout=180) for run in runs] == ["finished", "finished"]
    played = list_matches(db)
    assert len(played) == 2
    for match in played:
        assert match.status == MatchStatus.FINISHED
        assert [seat.end_reason for seat in match.seats] == [EndReason.FINISHED] * 2
    assert {row.faults for row in standings.standings(db, "kingdoms")} == {0}


def test_bots_whose_command_cannot_start_are_not_rated_as_winners(server: BackgroundServer) -> None:
    db = server.server.db
    relative = [".venv/bin/python", "-m", "kingmaker.sample_bots.random_bot"]  # as the old README had it
    for name in ("a", "b"):
        bots.register_bot(db, name, ["kingdoms"], command=relative)
    leagues.create_league(db, "broken", "kingdoms", ["a", "b"], rounds=3, seed=1)
    assert server.run(run_league(server, "broken", concurrency=2)) == "finished"
    played = list_matches(db, league="broken")
    # Before the fix every match finished with both seats NEVER_CONNECTED and both ranked first:
    # the ladder listed each bot with 3 matches, 3 wins and an average rank of 1.
    assert played and all(match.status == MatchStatus.VOID for match in played)
    assert all("cannot start" in (match.status_reason or "") for match in played)
    assert all(row.matches == 0 and row.wins == 0 for row in standings.standings(db, "kingdoms"))
    # The server's set-up failed, not the bots: nobody is faulted or suspended for it.
    assert all(bots.get_bot(db, name).suspended_reason is None for name in ("a", "b"))


def test_a_stream_plays_only_the_games_its_hello_offered(quick_server: BackgroundServer) -> None:
    db = quick_server.server.db
    # The opponent is connected before the match: the server's 3 s are for the absent stream, and
    # a launched opponent's start could take longer than that on a loaded machine.
    with (
        remote_bot(quick_server, "other", ["kingdoms"]),
        remote_bot(quick_server, "roads", ["kingdoms", "kings_road"], capacity=4, offers=["kings_road"]),
    ):
        ticket = mark_running(db, create_match(db, "kingdoms", ["roads", "other"], seed=3).match_id)
        quick_server.run(play_ticket(db, quick_server.server.roster, ticket, TimeControl(decision_ms=1000)))
    seats = match_summary(db, ticket.match_id).seats
    # Before the fix the stream that offered only King's Road was handed a Kingdoms match.
    assert seats[0].end_reason is EndReason.NEVER_CONNECTED
    assert "offering kingdoms" in (seats[0].detail or "")
    assert seats[1].end_reason is EndReason.FINISHED


def test_a_server_restart_voids_the_one_off_matches_it_left_running(
    kingmaker_home: Path, ladder_url: str
) -> None:
    url = ladder_url
    db = open_database(url)
    for name in ("a", "b"):
        bots.register_bot(db, name, ["kingdoms"])
    stranded = mark_running(db, create_match(db, "kingdoms", ["a", "b"], seed=1).match_id)
    db.close()
    # ... the server that ran it died here; a new one starts on the same database ...
    running = BackgroundServer(ServerConfig(address="127.0.0.1:0", database_url=url))
    try:
        summary = match_summary(running.server.db, stranded.match_id)
    finally:
        running.stop()
    # Before the fix the match stayed running forever.
    assert summary.status == MatchStatus.VOID
    assert "server stopped" in (summary.status_reason or "")


def test_a_bot_disabled_mid_match_is_not_blamed_and_the_match_is_void(
    patient_server: BackgroundServer,
) -> None:
    # (patient: the launched opponent may take more than 3 s to say hello on a loaded machine)
    db = patient_server.server.db
    bots.register_bot(db, "steady", ["kingdoms"])
    bots.register_bot(
        db, "other", ["kingdoms"], command=[sys.executable, "-m", "kingmaker.sample_bots.random_bot"]
    )
    with connected_bot(patient_server, "steady", [], pause=0.05):
        ticket = mark_running(db, create_match(db, "kingdoms", ["steady", "other"], seed=4).match_id)
        playing = asyncio.run_coroutine_threadsafe(
            play_ticket(db, patient_server.server.roster, ticket, TimeControl(decision_ms=1000)),
            patient_server.loop,
        )
        deadline = time.monotonic() + 20
        while not any(s.matches for s in list(patient_server.server.pool.sessions) if s.bot == "steady"):
            assert time.monotonic() < deadline, "the match did not start"
            time.sleep(0.05)
        metadata = (("authorization", f"Bearer {patient_server.admin_token}"),)
        with grpc.insecure_channel(patient_server.address) as channel:
            admin = admin_pb2_grpc.AdminStub(channel)
            request = admin_pb2.SetBotEnabledRequest(name="steady", enabled=False)
            admin.SetBotEnabled(request, metadata=metadata)
        playing.result(timeout=60)
    summary = match_summary(db, ticket.match_id)
    # Before the fix the seat ended DISCONNECTED: a fault of a bot that only did as it was told.
    assert summary.seats[0].end_reason is EndReason.ABORTED
    assert "disabled" in (summary.seats[0].detail or "")
    assert summary.status == MatchStatus.VOID
    assert all(row.faults == 0 for row in standings.standings(db, "kingdoms"))
