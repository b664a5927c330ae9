"""The admin lane (``server/services/lane.py``): the Admin API on a gRPC server of its own thread
(issue 35: Admin calls waited behind 1,000 connecting bots). Its reads of the database run on its
own loop; the other calls are handed to the main loop. No time is asserted: orders and outcomes."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import stat
import tarfile
import threading
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kingmaker.ladder.bots import bots
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.services.lane import AdminLane, Listening
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

ADMIN = (("authorization", "Bearer admin"),)


def lane_of(server: BackgroundServer) -> str:
    [address] = server.server.lane_addresses
    return address


def wait_for(condition: object, what: str, within: float = 120.0) -> None:
    deadline = time.monotonic() + within
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"waited {within} s for {what}"
        time.sleep(0.01)


def test_the_lane_listens_in_the_home_and_the_home_lock_says_so(
    admin_server: BackgroundServer, kingmaker_home: Path
) -> None:
    socket = kingmaker_home / "admin.sock"
    assert lane_of(admin_server) == f"unix:{socket}"
    assert stat.S_ISSOCK(socket.stat().st_mode)
    said = json.loads((kingmaker_home / "server.lock").read_text())
    assert said["address"] == admin_server.address and said["lane"] == f"unix:{socket}"
    with grpc.insecure_channel(lane_of(admin_server)) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=60)
    assert health.status == health_pb2.HealthCheckResponse.SERVING


def test_the_lane_asks_for_the_token_and_shows_what_the_main_address_shows(
    admin_server: BackgroundServer,
) -> None:
    db = admin_server.server.db
    bots.register_bot(db, "alpha", ["kingdoms"], command=["python3", "secret_bot.py"])
    seen = []
    for address in (admin_server.address, lane_of(admin_server)):
        with grpc.insecure_channel(address) as channel:
            stub = admin_pb2_grpc.AdminStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                stub.SetBotEnabled(admin_pb2.SetBotEnabledRequest(name="alpha", enabled=False), timeout=60)
            with pytest.raises(grpc.RpcError) as wrong:
                stub.ListBots(
                    admin_pb2.ListBotsRequest(), metadata=(("authorization", "Bearer nope"),), timeout=60
                )
            with pytest.raises(grpc.RpcError) as unknown:
                stub.GetBot(admin_pb2.GetBotRequest(name="nobody"), metadata=ADMIN, timeout=60)
            public = stub.ListBots(admin_pb2.ListBotsRequest(), timeout=60)
            admin = stub.ListBots(admin_pb2.ListBotsRequest(), metadata=ADMIN, timeout=60)
            seen.append(
                (
                    refused.value.code(),
                    wrong.value.code(),
                    unknown.value.code(),
                    unknown.value.details(),
                    public.SerializeToString(deterministic=True),
                    admin.SerializeToString(deterministic=True),
                )
            )
    assert seen[0] == seen[1]
    assert seen[1][:3] == (
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.NOT_FOUND,
    )
    assert b"secret_bot.py" in seen[1][5] and b"secret_bot.py" not in seen[1][4], (
        "redacted as on the main address"
    )


def test_streams_both_ways_go_through_the_lane(admin_server: BackgroundServer) -> None:
    """A client-streamed upload (Submit) and a server-streamed reply (WatchVersion) over the lane."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as packed:
        body = b"print('hi')\n"
        member = tarfile.TarInfo("bot.py")
        member.size = len(body)
        packed.addfile(member, io.BytesIO(body))
    payload = data.getvalue()
    header = admin_pb2.SubmitHeader(
        bot="uploaded",
        games=["kingdoms"],
        format="tar.gz",
        size=len(payload),
        sha256=hashlib.sha256(payload).hexdigest(),
    )
    chunks = [
        admin_pb2.SubmitChunk(header=header),
        *(admin_pb2.SubmitChunk(data=payload[i : i + 7]) for i in range(0, len(payload), 7)),
    ]
    with grpc.insecure_channel(lane_of(admin_server)) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        version = stub.Submit(iter(chunks), metadata=ADMIN, timeout=300)
        assert version.bot == "uploaded"
        watched = stub.WatchVersion(
            admin_pb2.GetVersionRequest(bot="uploaded", number=version.number), metadata=ADMIN, timeout=300
        )
        first = next(iter(watched))
        watched.cancel()
        assert first.bot == "uploaded" and first.number == version.number
        bad = admin_pb2.SubmitHeader(
            bot="short", games=["kingdoms"], format="tar.gz", size=len(payload) + 1, sha256=header.sha256
        )
        with pytest.raises(grpc.RpcError) as short:
            stub.Submit(iter([admin_pb2.SubmitChunk(header=bad), *chunks[1:]]), metadata=ADMIN, timeout=300)
    assert short.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "ended after" in (short.value.details() or "")


def test_a_lane_that_cannot_listen_says_so_and_leaves_no_thread(tmp_path: Path) -> None:
    async def start() -> None:
        lane = AdminLane([], [])
        await lane.start()
        await lane.stop()
        taken = AdminLane(
            [
                # (a socket in a folder that does not exist cannot be made)
                Listening(f"unix:{tmp_path / 'missing' / 'admin.sock'}")
            ],
            [],
        )
        with pytest.raises(RuntimeError):
            await taken.start()

    before = {thread.name for thread in threading.enumerate()}
    asyncio.run(start())
    assert "admin lane" not in {thread.name for thread in threading.enumerate()} - before


def test_stop_stops_the_lane(kingmaker_home: Path) -> None:
    server = BackgroundServer(
        ServerConfig(address="127.0.0.1:0", admin_token="admin", jail=False, resume_leagues=False)
    )
    lane = lane_of(server)
    server.stop()
    assert not (kingmaker_home / "admin.sock").exists()
    assert not any(thread.name == "admin lane" for thread in threading.enumerate())
    with grpc.insecure_channel(lane) as channel, pytest.raises(grpc.RpcError) as gone:
        admin_pb2_grpc.AdminStub(channel).ListGames(admin_pb2.ListGamesRequest(), timeout=5)
    assert gone.value.code() == grpc.StatusCode.UNAVAILABLE


def test_reads_of_the_database_are_answered_on_the_lane_while_the_main_loop_is_held(
    admin_server: BackgroundServer,
) -> None:
    """``READ_ON_THE_LANE`` run on the lane's own loop: answered while the main loop is held; a
    call that needs the main loop (ListLeagues) is answered only once it is let go."""
    bots.register_bot(admin_server.server.db, "alpha", ["kingdoms"])
    held, let_go = threading.Event(), threading.Event()

    def hold() -> None:
        held.set()
        let_go.wait(300)

    answered: list[str] = []
    with grpc.insecure_channel(lane_of(admin_server)) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        stub.ListGames(admin_pb2.ListGamesRequest(), timeout=120)  # connected first
        admin_server.loop.call_soon_threadsafe(hold)
        try:
            assert held.wait(120)
            waiting = stub.ListLeagues.future(admin_pb2.ListLeaguesRequest(), metadata=ADMIN, timeout=300)
            waiting.add_done_callback(lambda _: answered.append("ListLeagues"))
            listed = stub.ListBots(admin_pb2.ListBotsRequest(), metadata=ADMIN, timeout=120)
            answered.append("ListBots")
            standings = stub.GetStandings(admin_pb2.GetStandingsRequest(game="kingdoms"), timeout=120)
            answered.append("GetStandings")
        finally:
            let_go.set()
        waiting.result()
    assert [bot.name for bot in listed.bots] == ["alpha"] and standings.game == "kingdoms"
    assert answered == ["ListBots", "GetStandings", "ListLeagues"]
