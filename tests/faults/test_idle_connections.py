"""Connections that never speak, and streams that never say hello, are closed after a timeout
and capped, so no client can hold the server's file descriptors and starve the others. Before,
379 such connections exhausted a 400-file limit and health checks timed out until they left."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kingmaker.ladder.bots import bots
from kingmaker.server.app import ServerConfig, incoming_connection_limit
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.arena import ArenaService, Refusal
from kingmaker.server.seats.sessions import SessionPool
from kingmaker.v1 import arena_pb2, arena_pb2_grpc

pytestmark = pytest.mark.faults


@pytest.fixture
def impatient(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    config = ServerConfig(
        address="127.0.0.1:0", handshake_timeout=0.5, idle_connection_timeout=1.0, hello_timeout=1.0
    )
    running = BackgroundServer(config)
    try:
        yield running
    finally:
        running.stop()


def healthy(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)


def closed_by_server(connection: socket.socket) -> bool:
    """True when the server has closed it (whatever it said first, e.g. its HTTP/2 settings)."""
    connection.settimeout(0.2)
    try:
        while connection.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


def test_silent_connections_are_closed_and_others_still_get_through(impatient: BackgroundServer) -> None:
    host, port = impatient.address.rsplit(":", 1)
    silent = [socket.create_connection((host, int(port))) for _ in range(100)]
    idle_channels = [grpc.insecure_channel(impatient.address) for _ in range(10)]
    try:
        for channel in idle_channels:
            grpc.channel_ready_future(channel).result(timeout=5)  # connected, then never calls
        assert healthy(impatient.address), "a health check gets through while they sit there"
        time.sleep(2.5)
        # Before the fix none of them was ever closed.
        assert sum(closed_by_server(connection) for connection in silent) == len(silent)
        assert healthy(impatient.address)
    finally:
        for connection in silent:
            connection.close()
        for channel in idle_channels:
            channel.close()


def test_streams_that_never_say_hello_are_capped_and_timed_out(impatient: BackgroundServer) -> None:
    _, token = bots.register_bot(impatient.server.db, "late-talker", ["kingdoms"])
    with grpc.insecure_channel(impatient.address) as channel:
        stub = arena_pb2_grpc.ArenaStub(channel)
        mute = stub.Play(_never())  # a stream that never sends its hello
        with pytest.raises(grpc.RpcError) as ended:
            list(mute)
        assert ended.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert "no hello within 1 s" in (ended.value.details() or "")
        hello = arena_pb2.BotMessage(hello=arena_pb2.Hello(token=token, protocol_version=1))
        welcome = next(iter(stub.Play(iter([hello]), timeout=5)))
        assert welcome.welcome.bot == "late-talker"


def _never() -> Iterator[arena_pb2.BotMessage]:
    time.sleep(3)  # longer than the hello timeout; then end the stream
    yield from ()


def test_the_connection_cap_leaves_room_for_files() -> None:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = incoming_connection_limit()
    assert 16 <= limit < soft or soft == resource.RLIM_INFINITY


def test_beyond_the_cap_a_stream_waiting_for_hello_is_refused_at_once() -> None:
    async def scenario() -> None:
        service = ArenaService(SessionPool(), hello_timeout=5, max_waiting_for_hello=2)
        silence = asyncio.Event()

        async def mute() -> AsyncIterator[arena_pb2.BotMessage]:
            await silence.wait()
            yield arena_pb2.BotMessage()

        waiting = [asyncio.create_task(service._admit(mute())) for _ in range(2)]
        await asyncio.sleep(0.1)
        with pytest.raises(Refusal) as refused:
            await service._admit(mute())
        assert refused.value.status == grpc.StatusCode.RESOURCE_EXHAUSTED
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        assert service.waiting_for_hello == 0

    asyncio.run(scenario())
