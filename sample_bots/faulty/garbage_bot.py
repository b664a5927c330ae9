"""Speaks the protocol with raw gRPC and answers every request with undecodable bytes.

It does not use the SDK, because the SDK cannot send garbage: the reply claims to hold an action of
the game but its bytes are not a valid message.
"""

from __future__ import annotations

import os
import queue
import sys
from collections.abc import Iterator

import grpc

from kingmaker.v1 import arena_pb2, arena_pb2_grpc


def main() -> None:
    outbox: queue.Queue[arena_pb2.BotMessage | None] = queue.Queue()
    outbox.put(
        arena_pb2.BotMessage(hello=arena_pb2.Hello(token=os.environ["KINGMAKER_TOKEN"], protocol_version=1))
    )

    def outgoing() -> Iterator[arena_pb2.BotMessage]:
        while (message := outbox.get()) is not None:
            yield message

    with grpc.insecure_channel(os.environ["KINGMAKER_SERVER"]) as channel:
        stream = arena_pb2_grpc.ArenaStub(channel).Play(outgoing())
        try:
            for message in stream:
                if message.WhichOneof("message") == "action_request":
                    request = message.action_request
                    reply = arena_pb2.ActionReply(match_id=request.match_id, request_id=request.request_id)
                    reply.action.type_url = request.legal_actions[0].type_url
                    reply.action.value = b"\xff\xff\xff\xff garbage"
                    outbox.put(arena_pb2.BotMessage(reply=reply))
                elif message.WhichOneof("message") == "error":
                    code = arena_pb2.ErrorCode.Name(message.error.code)
                    print(f"{code}: {message.error.message}", file=sys.stderr, flush=True)
        finally:
            outbox.put(None)


if __name__ == "__main__":
    main()
