"""The Admin API answers while many remote bots connect at once (issue 35: `league create` said
"cannot reach the server" while 1,000 connected): their hellos' tokens are checked in batches on
a thread of their own, not one database read each in the pool every Admin call waits in."""

from __future__ import annotations

import asyncio
import threading

import grpc

from kingmaker.ladder.bots import bots
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.token_checks import TokenChecks
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc

BOTS = 200
GAME = "kingdoms"


class Swarm:
    """``BOTS`` streams saying hello at once, from one thread's event loop (as bench/remote_swarm.py)."""

    def __init__(self, address: str, tokens: list[str]) -> None:
        self.address, self.tokens = address, tokens
        self.welcomed = 0
        self.refused: list[str] = []
        self.all_welcomed = threading.Event()
        self.started = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)
        self.thread.start()

    async def _bot(self, stub: arena_pb2_grpc.ArenaStub, token: str) -> None:
        call = stub.Play()
        await call.write(arena_pb2.BotMessage(hello=arena_pb2.Hello(token=token, protocol_version=1)))
        try:
            message = await call.read()
        except grpc.aio.AioRpcError as error:
            self.refused.append(str(error.code()))
            return
        if message is not grpc.aio.EOF and message.WhichOneof("message") == "welcome":
            self.welcomed += 1
            if self.welcomed == len(self.tokens):
                self.all_welcomed.set()
        else:
            self.refused.append(str(message))
        assert self._stop is not None
        await self._stop.wait()
        call.cancel()

    async def _run(self) -> None:
        self._stop, self._loop = asyncio.Event(), asyncio.get_running_loop()
        channels = [grpc.aio.insecure_channel(self.address) for _ in range(0, len(self.tokens), 50)]
        stubs = [arena_pb2_grpc.ArenaStub(channel) for channel in channels]
        bots_ = [self._bot(stubs[index // 50], token) for index, token in enumerate(self.tokens)]
        self.started.set()
        await asyncio.gather(*bots_)
        for channel in channels:
            await channel.close()

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(timeout=60)


def test_admin_calls_are_answered_while_200_bots_say_hello(admin_server: BackgroundServer) -> None:
    server = admin_server
    db = server.server.db
    tokens = [bots.register_bot(db, f"remote-{number:03d}", [GAME])[1] for number in range(BOTS)]
    checks = server.server.token_checks
    reads_before = checks.reads
    metadata = (("authorization", "Bearer admin"),)
    with grpc.insecure_channel(server.address) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        stub.ListGames(admin_pb2.ListGamesRequest(), timeout=120)  # connected before the swarm
        swarm = Swarm(server.address, tokens)
        try:
            assert swarm.started.wait(120)
            answered = []
            for number in range(3):  # while the hellos arrive (no time is asserted: the outcome is)
                request = admin_pb2.CreateLeagueRequest(
                    name=f"during-{number}",
                    game=GAME,
                    format="round_robin",
                    bots=["remote-000", "remote-001"],
                )
                answered.append(stub.CreateLeague(request, metadata=metadata, timeout=300).name)
                answered.append(
                    str(len(stub.ListBots(admin_pb2.ListBotsRequest(), metadata=metadata, timeout=300).bots))
                )
            assert swarm.all_welcomed.wait(300), (swarm.welcomed, swarm.refused[:3])
        finally:
            swarm.stop()
    assert answered == ["during-0", str(BOTS), "during-1", str(BOTS), "during-2", str(BOTS)]
    assert swarm.refused == []
    # Two checks per hello (admitting it, and after, for a token rotated meanwhile), in batches:
    # far fewer reads than checks.
    assert checks.reads - reads_before < BOTS


def test_checks_asked_during_a_read_share_the_next_one_and_see_what_changed_before_them() -> None:
    held = {"a": 1}
    batches: list[list[str]] = []
    release = threading.Event()

    def lookup(tokens: list[str]) -> dict[str, int]:
        batches.append(list(tokens))
        release.wait(30)
        return {token: held[token] for token in tokens if token in held}

    async def main() -> list[int | None]:
        checks: TokenChecks[int] = TokenChecks(lookup)
        try:
            first = asyncio.ensure_future(checks.check("a"))
            while not batches:
                await asyncio.sleep(0.01)
            held["b"] = 2  # changed after the first read began: only later checks may see it
            rest = [asyncio.ensure_future(checks.check(token)) for token in ("b", "a", "c", "b")]
            release.set()
            return [await first, *[await check for check in rest]]
        finally:
            checks.close()

    assert asyncio.run(main()) == [1, 2, 1, None, 2]
    assert batches == [["a"], ["b", "a", "c"]]


def test_a_failed_read_fails_its_checks_and_the_next_read_serves_the_next_ones() -> None:
    calls = 0

    def lookup(tokens: list[str]) -> dict[str, int]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("database gone")
        return dict.fromkeys(tokens, 7)

    async def main() -> tuple[str, int | None]:
        checks: TokenChecks[int] = TokenChecks(lookup)
        try:
            try:
                await checks.check("x")
            except RuntimeError as error:
                failed = str(error)
            return failed, await checks.check("x")
        finally:
            checks.close()

    assert asyncio.run(main()) == ("database gone", 7)
