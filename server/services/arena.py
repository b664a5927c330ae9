"""The bot-facing Arena service: admit a stream by its hello, then pump messages both ways."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc

from kingmaker.sdk.client import PROTOCOL_VERSION
from kingmaker.server.services.errors import abort
from kingmaker.server.sessions import BotSession, SessionPool
from kingmaker.v1 import arena_pb2, arena_pb2_grpc

HELLO_TIMEOUT_SECONDS = 10.0


class ArenaService(arena_pb2_grpc.ArenaServicer):
    def __init__(self, pool: SessionPool, hello_timeout: float = HELLO_TIMEOUT_SECONDS) -> None:
        self.pool = pool
        self.hello_timeout = hello_timeout

    async def Play(
        self, request_iterator: AsyncIterator[arena_pb2.BotMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[arena_pb2.ServerMessage]:
        session = await self._admit(request_iterator, context)
        welcome = arena_pb2.Welcome(
            bot=session.bot, session_id=session.session_id, protocol_version=PROTOCOL_VERSION
        )
        reader = asyncio.ensure_future(_read(session, request_iterator))
        try:
            yield arena_pb2.ServerMessage(welcome=welcome)
            while (message := await session.outbox.get()) is not None:
                yield message
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            self.pool.remove(session)

    async def _admit(
        self, request_iterator: AsyncIterator[arena_pb2.BotMessage], context: grpc.aio.ServicerContext
    ) -> BotSession:
        try:
            first = await asyncio.wait_for(anext(request_iterator), self.hello_timeout)
        except TimeoutError:
            await abort(
                context, grpc.StatusCode.DEADLINE_EXCEEDED, f"no hello within {self.hello_timeout:g} s"
            )
        except StopAsyncIteration:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, "the stream closed before its hello")
        if first.WhichOneof("message") != "hello":
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a hello")
        hello = first.hello
        if hello.protocol_version not in (0, PROTOCOL_VERSION):
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {hello.protocol_version} is not supported "
                f"(this server speaks {PROTOCOL_VERSION})",
            )
        identity = await self.pool.identify(hello.token)
        if identity is None:
            await abort(context, grpc.StatusCode.UNAUTHENTICATED, "unknown or revoked token")
        session = BotSession(identity, tuple(hello.games), max(1, hello.max_concurrent_matches))
        self.pool.admit(session)
        return session


async def _read(session: BotSession, request_iterator: AsyncIterator[arena_pb2.BotMessage]) -> None:
    """Feed the bot's messages to its session; a closed stream closes the session."""
    try:
        async for message in request_iterator:
            session.on_message(message)
    except (grpc.aio.AioRpcError, asyncio.CancelledError):
        pass
    finally:
        session.close()
