"""Rotating a bot's token, disabling or removing the bot ends the streams that use it at once;
before, such streams kept playing rated matches and crowded out the owner's new connections."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator

import grpc
import pytest

from kingmaker.ladder.bots import bots
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.arena import MAX_CONNECTIONS_PER_BOT
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc

pytestmark = pytest.mark.faults


class OpenStream:
    """An Arena stream held open in a thread, recording everything the server sends."""

    def __init__(self, address: str, token: str) -> None:
        self.channel = grpc.insecure_channel(address)
        self.outgoing: queue.Queue[arena_pb2.BotMessage | None] = queue.Queue()
        self.outgoing.put(arena_pb2.BotMessage(hello=arena_pb2.Hello(token=token, protocol_version=1)))
        self.received: list[arena_pb2.ServerMessage] = []
        self.ended = threading.Event()
        self.welcomed = threading.Event()
        self.call = arena_pb2_grpc.ArenaStub(self.channel).Play(self._messages())
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _messages(self) -> Iterator[arena_pb2.BotMessage]:
        while (message := self.outgoing.get()) is not None:
            yield message

    def _read(self) -> None:
        try:
            for message in self.call:
                self.received.append(message)
                if message.WhichOneof("message") == "welcome":
                    self.welcomed.set()
        except grpc.RpcError:
            pass
        finally:
            self.ended.set()

    def close(self) -> None:
        self.outgoing.put(None)
        self.call.cancel()
        self.thread.join(5)
        self.channel.close()

    def errors(self) -> list[str]:
        return [m.error.message for m in self.received if m.WhichOneof("message") == "error"]


def admin(server: BackgroundServer, method: str, request: object) -> object:
    with grpc.insecure_channel(server.address) as channel:
        metadata = (("authorization", f"Bearer {server.admin_token}"),)
        return getattr(admin_pb2_grpc.AdminStub(channel), method)(request, metadata=metadata)


@pytest.mark.parametrize(
    ("method", "request_", "said"),
    [
        ("RotateToken", admin_pb2.RotateTokenRequest(name="owned"), "token was rotated"),
        ("SetBotEnabled", admin_pb2.SetBotEnabledRequest(name="owned", enabled=False), "was disabled"),
        ("RemoveBot", admin_pb2.RemoveBotRequest(name="owned"), "was removed"),
    ],
)
def test_streams_of_a_revoked_token_end_at_once(
    server: BackgroundServer, method: str, request_: object, said: str
) -> None:
    _, old = bots.register_bot(server.server.db, "owned", ["kingdoms"])
    streams = [OpenStream(server.address, old) for _ in range(MAX_CONNECTIONS_PER_BOT)]
    try:
        assert all(stream.welcomed.wait(10) for stream in streams)
        answer = admin(server, method, request_)
        # Before the fix every old stream stayed open and kept being offered rated matches.
        assert all(stream.ended.wait(10) for stream in streams), "an old stream is still open"
        assert all(any(said in text for text in stream.errors()) for stream in streams)
        if method == "RotateToken":
            # The owner with the new token is not refused for the old streams' sake.
            fresh = OpenStream(server.address, answer.token)  # type: ignore[attr-defined]
            try:
                assert fresh.welcomed.wait(10), fresh.errors()
            finally:
                fresh.close()
    finally:
        for stream in streams:
            stream.close()


def test_a_stream_admitted_while_its_token_is_rotated_does_not_survive(
    server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, old = bots.register_bot(server.server.db, "racing", ["kingdoms"])
    pool = server.server.pool
    real_identify = pool.identify
    calls = 0

    async def identify_then_rotate(token: str) -> object:
        nonlocal calls
        calls += 1
        identity = await real_identify(token)
        if calls == 1:  # the admin rotates the token just after the server checked it
            bots.rotate_token(server.server.db, "racing")
        return identity

    monkeypatch.setattr(pool, "identify", identify_then_rotate)
    stream = OpenStream(server.address, old)
    try:
        assert stream.ended.wait(10)
        assert any("revoked while the stream was connecting" in text for text in stream.errors())
        assert not any(s.bot == "racing" for s in pool.sessions)
    finally:
        stream.close()
