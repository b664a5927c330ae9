"""The bot-facing Arena service: admit a stream by its hello, then pump messages both ways.

A stream ends with status OK when the server is done with the bot, and with the status of
``FAULT_STATUS`` when the bot broke the protocol (after its ``Error`` and, for each match it was
in, its ``match_end``): a bot that reads only statuses still learns why."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import cast

import grpc
from google.protobuf.message import DecodeError

from kingmaker.sdk.client import PROTOCOL_VERSION
from kingmaker.server.grpc_abort import abort
from kingmaker.server.seats.sessions import BotSession, SessionPool
from kingmaker.v1 import arena_pb2, arena_pb2_grpc

HELLO_TIMEOUT_SECONDS = 10.0
MAX_WAITING_FOR_HELLO = 256
"""Streams that have not said hello yet, at most, across the server: each is closed after
``HELLO_TIMEOUT_SECONDS``, and beyond this many a new one is refused at once (memory stays bounded
whatever a client opens)."""
MAX_CONNECTIONS_PER_BOT = 8
"""Streams one registered bot may hold open at once, so one greedy client cannot crowd out others."""
FAULT_STATUS = {
    arena_pb2.ERROR_CODE_FLOODING: grpc.StatusCode.RESOURCE_EXHAUSTED,
    arena_pb2.ERROR_CODE_MALFORMED_REPLY: grpc.StatusCode.INVALID_ARGUMENT,
}
"""The status that ends a stream closed for a protocol fault, by the error the bot was sent."""


class Refusal(Exception):
    """A stream the server will not serve: sent to the bot as an Error, then as the gRPC status."""

    def __init__(self, code: arena_pb2.ErrorCode, status: grpc.StatusCode, text: str) -> None:
        super().__init__(text)
        self.code = code
        self.status = status
        self.text = text


class ArenaService(arena_pb2_grpc.ArenaServicer):
    def __init__(
        self,
        pool: SessionPool,
        hello_timeout: float = HELLO_TIMEOUT_SECONDS,
        max_connections_per_bot: int = MAX_CONNECTIONS_PER_BOT,
        max_waiting_for_hello: int = MAX_WAITING_FOR_HELLO,
    ) -> None:
        self.pool = pool
        self.hello_timeout = hello_timeout
        self.max_connections_per_bot = max_connections_per_bot
        self.max_waiting_for_hello = max_waiting_for_hello
        self.waiting_for_hello = 0

    async def Play(
        self, request_iterator: AsyncIterator[arena_pb2.BotMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[arena_pb2.ServerMessage]:
        try:
            session = await self._admit(request_iterator)
        except Refusal as refusal:
            yield arena_pb2.ServerMessage(error=arena_pb2.Error(code=refusal.code, message=refusal.text))
            await abort(context, refusal.status, refusal.text)
        welcome = arena_pb2.Welcome(
            bot=session.bot, session_id=session.session_id, protocol_version=PROTOCOL_VERSION
        )
        reader = asyncio.ensure_future(_read(session, request_iterator))
        try:
            yield arena_pb2.ServerMessage(welcome=welcome)
            while (message := await session.outbox.get()) is not None:
                session.sending(message)
                yield message
            if session.fault:
                status = FAULT_STATUS.get(session.fault_code, grpc.StatusCode.UNKNOWN)
                await abort(context, status, session.fault)
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            self.pool.remove(session)

    async def _admit(self, request_iterator: AsyncIterator[arena_pb2.BotMessage]) -> BotSession:
        """The session of a stream whose hello is in order; ``Refusal`` otherwise."""
        if self.waiting_for_hello >= self.max_waiting_for_hello:
            text = f"{self.waiting_for_hello} streams are already waiting to say hello; try again shortly"
            raise Refusal(arena_pb2.ERROR_CODE_TOO_MANY_CONNECTIONS, grpc.StatusCode.RESOURCE_EXHAUSTED, text)
        self.waiting_for_hello += 1
        try:
            first = await self._first_message(request_iterator)
        finally:
            self.waiting_for_hello -= 1
        return await self._admit_hello(first)

    async def _first_message(
        self, request_iterator: AsyncIterator[arena_pb2.BotMessage]
    ) -> arena_pb2.BotMessage:
        bad_hello = arena_pb2.ERROR_CODE_BAD_HELLO
        try:
            return await asyncio.wait_for(anext(request_iterator), self.hello_timeout)
        except TimeoutError:
            raise Refusal(  # noqa: B904  # the timeout is the reason, not a failure in handling it
                bad_hello, grpc.StatusCode.DEADLINE_EXCEEDED, f"no hello within {self.hello_timeout:g} s"
            )
        except StopAsyncIteration:
            raise Refusal(
                bad_hello, grpc.StatusCode.INVALID_ARGUMENT, "the stream closed before its hello"
            ) from None

    async def _admit_hello(self, first: arena_pb2.BotMessage) -> BotSession:
        bad_hello = arena_pb2.ERROR_CODE_BAD_HELLO
        if first.WhichOneof("message") != "hello":
            raise Refusal(bad_hello, grpc.StatusCode.INVALID_ARGUMENT, "the first message must be a hello")
        hello = first.hello
        if hello.protocol_version not in (0, PROTOCOL_VERSION):
            version = hello.protocol_version
            text = f"protocol version {version} is not supported (this server speaks {PROTOCOL_VERSION})"
            raise Refusal(arena_pb2.ERROR_CODE_UNSUPPORTED_VERSION, grpc.StatusCode.FAILED_PRECONDITION, text)
        identity = await self.pool.identify(hello.token)
        if identity is None:
            text = "unknown or revoked token" if hello.token else "the hello has no token"
            raise Refusal(arena_pb2.ERROR_CODE_UNAUTHENTICATED, grpc.StatusCode.UNAUTHENTICATED, text)
        if identity.barred:  # suspended or disabled: its token is good, so say why it may not play
            code = cast(arena_pb2.ErrorCode, identity.barred_code)
            raise Refusal(code, grpc.StatusCode.PERMISSION_DENIED, identity.barred)
        if identity.bot_id is not None and identity.launch_key is None:
            open_streams = len(self.pool.sessions_of(identity.bot_id))
            if open_streams >= self.max_connections_per_bot:
                text = f"{identity.bot} already has {open_streams} connections, the most a bot may hold"
                raise Refusal(
                    arena_pb2.ERROR_CODE_TOO_MANY_CONNECTIONS, grpc.StatusCode.RESOURCE_EXHAUSTED, text
                )
        session = BotSession(
            identity,
            tuple(hello.games),
            max(1, hello.max_concurrent_matches),
            acknowledges_match_end=hello.acknowledges_match_end,
        )
        self.pool.admit(session)
        if identity.launch_key is None and await self.pool.identify(hello.token) != identity:
            # The token was rotated (or the bot disabled or removed) while this stream was being
            # admitted: the rotation ended the streams it could see, so this one must end here.
            self.pool.remove(session)
            text = "the token was revoked while the stream was connecting"
            raise Refusal(arena_pb2.ERROR_CODE_UNAUTHENTICATED, grpc.StatusCode.UNAUTHENTICATED, text)
        return session


async def _read(session: BotSession, request_iterator: AsyncIterator[arena_pb2.BotMessage]) -> None:
    """Feed the bot's messages to its session until it closes; the bot's end of the stream
    closing closes the session."""
    try:
        async for message in request_iterator:
            session.on_message(message)
            if session.closed.is_set():  # for a fault: read no more of what it sends
                return
    except asyncio.CancelledError:
        pass
    except DecodeError as error:  # gRPC reads nothing more of a stream after this
        text = f"a message on the stream could not be decoded ({error}); nothing after it can be read"
        session.error(arena_pb2.ERROR_CODE_MALFORMED_REPLY, text)
        session.close(fault=text, code=arena_pb2.ERROR_CODE_MALFORMED_REPLY)
    except Exception as error:  # gRPC could not read the next message for another reason
        session.close(fault=f"the stream broke: {error}")
    finally:
        session.close()
