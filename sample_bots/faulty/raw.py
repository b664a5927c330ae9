"""A bare protocol client for the faulty bots that must send what the SDK never would.

``run(on_request)`` says hello, then calls ``on_request(request, send)`` for each action request;
``send`` queues any message, or raw bytes sent as they are, decodable or not (``None`` ends the
bot's half of the stream). ``run_faulty(misbehave)`` answers the first ``FAULT_AFTER`` requests
(environment, default 2) well and hands every later one to ``misbehave``. Errors the server sends
are printed to stderr, as the SDK does, and so are each ``match_end`` and the status the stream
ended with, so the tests can read what the bot was told.
"""

from __future__ import annotations

import os
import queue
import sys
from collections.abc import Callable, Iterator

import grpc

from kingmaker.v1 import arena_pb2, common_pb2

Send = Callable[[arena_pb2.BotMessage | bytes | None], None]


def reply(request: arena_pb2.ActionRequest, index: int = 0) -> arena_pb2.BotMessage:
    """A well-formed reply choosing a legal action by index."""
    answer = arena_pb2.ActionReply(
        match_id=request.match_id, request_id=request.request_id, legal_action_index=index
    )
    return arena_pb2.BotMessage(reply=answer)


def run_faulty(misbehave: Callable[[arena_pb2.ActionRequest, Send], None]) -> None:
    """Play well for ``FAULT_AFTER`` requests, so the fault lands mid-match, then misbehave."""
    fault_after = int(os.environ.get("FAULT_AFTER", "2"))
    answered = 0

    def on_request(request: arena_pb2.ActionRequest, send: Send) -> None:
        nonlocal answered
        answered += 1
        if answered <= fault_after:
            send(reply(request))
        else:
            misbehave(request, send)

    run(on_request)


def run(on_request: Callable[[arena_pb2.ActionRequest, Send], None], token: str | None = None) -> str:
    """Play until the stream ends; return the name of the status it ended with ("OK", ...)."""
    outbox: queue.Queue[arena_pb2.BotMessage | bytes | None] = queue.Queue()
    hello = arena_pb2.Hello(token=token or os.environ["KINGMAKER_TOKEN"], protocol_version=1)
    outbox.put(arena_pb2.BotMessage(hello=hello))

    def outgoing() -> Iterator[arena_pb2.BotMessage | bytes]:
        while (message := outbox.get()) is not None:
            yield message

    def serialize(message: arena_pb2.BotMessage | bytes) -> bytes:
        return message if isinstance(message, bytes) else message.SerializeToString()

    with grpc.insecure_channel(os.environ["KINGMAKER_SERVER"]) as channel:
        play = channel.stream_stream(
            "/kingmaker.v1.Arena/Play",
            request_serializer=serialize,
            response_deserializer=arena_pb2.ServerMessage.FromString,
        )
        stream = play(outgoing())
        try:
            for message in stream:
                kind = message.WhichOneof("message")
                if kind == "action_request":
                    on_request(message.action_request, outbox.put)
                elif kind == "error":
                    code = arena_pb2.ErrorCode.Name(message.error.code)
                    print(f"kingmaker: {code}: {message.error.message}", file=sys.stderr, flush=True)
                elif kind == "match_end":
                    reason = common_pb2.EndReason.Name(message.match_end.end_reason)
                    print(f"kingmaker: match_end: {reason}", file=sys.stderr, flush=True)
            print("kingmaker: stream ended: OK", file=sys.stderr, flush=True)
            return "OK"
        except grpc.RpcError as error:
            print(
                f"kingmaker: stream ended: {error.code().name}: {error.details()}",
                file=sys.stderr,
                flush=True,
            )
            return str(error.code().name)
        finally:
            outbox.put(None)
