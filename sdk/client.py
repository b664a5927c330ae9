"""Connect a bot to a kingmaker server and play until the server is done with it.

``run(bot)`` is all most bots need: it reads the server address and the token from the
environment (``KINGMAKER_SERVER``, ``KINGMAKER_TOKEN``; the referee sets both when it launches a
bot) or from its arguments, opens one stream, says hello, and answers every request with
``bot.act``. ``play`` is the same as a coroutine, for bots that live in an asyncio program.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import grpc

from kingmaker.games.api import Result
from kingmaker.sdk.bot import Bot, MatchEnd, MatchStart, Reply, Request, as_bot
from kingmaker.sdk.codec import GameCodec, codec_for, options_from_proto
from kingmaker.sdk.outbox import Outbox
from kingmaker.v1 import arena_pb2, arena_pb2_grpc, common_pb2

PROTOCOL_VERSION = 1
CLIENT = "kingmaker-python-sdk/0.1.0"
MAX_MESSAGE_BYTES = 16 * 1024 * 1024

log = logging.getLogger("kingmaker.sdk")


REFUSED = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED)
"""Statuses that end a stream for good: a bad token, or a suspended or disabled bot (retrying
will not help)."""
REFUSAL_CODES = (
    arena_pb2.ERROR_CODE_UNAUTHENTICATED,
    arena_pb2.ERROR_CODE_BAD_HELLO,
    arena_pb2.ERROR_CODE_SUSPENDED,
    arena_pb2.ERROR_CODE_DISABLED,
)


class ConnectionRefused(RuntimeError):
    """The server refused this bot (bad token, unsupported version, ...)."""


@dataclass
class _Match:
    game: str
    seat: int
    codec: GameCodec


@dataclass
class _Connection:
    bot: Bot
    outbox: Outbox = field(default_factory=Outbox)
    matches: dict[str, _Match] = field(default_factory=dict)


def server_address(address: str | None = None) -> str:
    found = address or os.environ.get("KINGMAKER_SERVER")
    if not found:
        raise ConnectionRefused("no server address: pass one or set KINGMAKER_SERVER")
    return found


def tls_credentials() -> grpc.ChannelCredentials | None:
    """TLS credentials trusting the CA in the PEM file named by KINGMAKER_TLS_CA, if it is set."""
    authority = os.environ.get("KINGMAKER_TLS_CA")
    if not authority:
        return None
    with open(authority, "rb") as pem:
        return grpc.ssl_channel_credentials(root_certificates=pem.read())


async def play(
    bot: Bot | Callable[[Request], Reply],
    server: str | None = None,
    token: str | None = None,
    games: Sequence[str] = (),
    max_concurrent_matches: int = 1,
    credentials: grpc.ChannelCredentials | None = None,
) -> None:
    """Play on one stream until the server closes it. Raises ``ConnectionRefused`` on a refused hello."""
    address = server_address(server)
    secret = token or os.environ.get("KINGMAKER_TOKEN", "")
    connection = _Connection(as_bot(bot))
    hello = arena_pb2.Hello(
        token=secret,
        games=list(games),
        max_concurrent_matches=max_concurrent_matches,
        client=CLIENT,
        protocol_version=PROTOCOL_VERSION,
        acknowledges_match_end=True,
    )
    connection.outbox.put(arena_pb2.BotMessage(hello=hello))
    options = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ]
    credentials = credentials or tls_credentials()
    if credentials is None:
        channel = grpc.aio.insecure_channel(address, options=options)
    else:
        channel = grpc.aio.secure_channel(address, credentials, options=options)
    async with channel:
        stub = arena_pb2_grpc.ArenaStub(channel)  # type: ignore[no-untyped-call]  # generated, untyped
        call = stub.Play(connection.outbox.messages())
        try:
            async for message in call:
                _handle(connection, message)
        except grpc.aio.AioRpcError as error:
            if error.code() in REFUSED:
                raise ConnectionRefused(error.details() or "the server refused the token") from None
            raise
        finally:
            connection.outbox.put(None)


def run(
    bot: Bot | Callable[[Request], Reply],
    server: str | None = None,
    token: str | None = None,
    games: Sequence[str] = (),
    max_concurrent_matches: int = 1,
) -> None:
    """Blocking ``play``: connect, play until the server is done, return. Exits 2 if refused."""
    logging.basicConfig(level=os.environ.get("KINGMAKER_LOG", "WARNING"), stream=sys.stderr)
    try:
        asyncio.run(play(bot, server, token, games, max_concurrent_matches))
    except ConnectionRefused as error:
        print(f"kingmaker: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        pass


def _handle(connection: _Connection, message: arena_pb2.ServerMessage) -> None:
    connection.outbox.heard(message)
    kind = message.WhichOneof("message")
    if kind == "welcome":
        log.info("connected as %s (session %s)", message.welcome.bot, message.welcome.session_id)
    elif kind == "match_start":
        _on_start(connection, message.match_start)
    elif kind == "action_request":
        reply = _answer(connection, message.action_request)
        connection.outbox.put(arena_pb2.BotMessage(reply=reply))
    elif kind == "match_end":
        _on_end(connection, message.match_end)
    elif kind == "error":
        error = message.error
        code = arena_pb2.ErrorCode.Name(error.code)
        print(f"kingmaker: {code}: {error.message}", file=sys.stderr)
        if error.code in REFUSAL_CODES:
            raise ConnectionRefused(error.message)


def _on_start(connection: _Connection, start: arena_pb2.MatchStart) -> None:
    codec = codec_for(start.game)
    connection.matches[start.match_id] = _Match(start.game, start.seat, codec)
    connection.bot.on_match_start(
        MatchStart(
            match_id=start.match_id,
            game=start.game,
            seat=start.seat,
            players=start.players,
            options=options_from_proto(start.options),
            seat_names=tuple(start.seat_bots),
        )
    )


def _answer(connection: _Connection, request: arena_pb2.ActionRequest) -> arena_pb2.ActionReply:
    match = connection.matches[request.match_id]
    codec = match.codec
    legal = tuple(codec.unpack_action(packed) for packed in request.legal_actions)
    decision = Request(
        match_id=request.match_id,
        request_id=request.request_id,
        game=match.game,
        seat=request.seat,
        observation=codec.unpack_observation(request.observation),
        legal_actions=legal,
        deadline_ms=request.deadline_ms,
        time_bank_ms=request.time_bank_ms,
    )
    choice = connection.bot.act(decision)
    reply = arena_pb2.ActionReply(match_id=request.match_id, request_id=request.request_id)
    if isinstance(choice, int) and not isinstance(choice, bool):
        reply.legal_action_index = choice
    else:
        reply.action.Pack(codec.encode_action(choice))
    return reply


def _on_end(connection: _Connection, end: arena_pb2.MatchEnd) -> None:
    connection.matches.pop(end.match_id, None)
    result = None
    if end.results:
        ordered = sorted(end.results, key=lambda seat: seat.seat)
        result = Result(
            scores=tuple(int(seat.score) for seat in ordered), ranks=tuple(seat.rank for seat in ordered)
        )
    reason = common_pb2.EndReason.Name(end.end_reason).removeprefix("END_REASON_")
    try:
        connection.bot.on_match_end(MatchEnd(end.match_id, end.seat, result, reason))
    finally:  # what it printed meanwhile is that match's (the server waits for this)
        sys.stderr.flush()
        seen = arena_pb2.MatchEndSeen(match_id=end.match_id)
        connection.outbox.put(arena_pb2.BotMessage(match_end_seen=seen))
