"""Answers every request with bytes that do not decode.

It speaks raw gRPC (see ``raw.py``), because the SDK cannot send garbage: the reply claims to hold
an action of the game but its bytes are not a valid message.
"""

from __future__ import annotations

from kingmaker.sample_bots.faulty.raw import Send, run
from kingmaker.v1 import arena_pb2


def answer_garbage(request: arena_pb2.ActionRequest, send: Send) -> None:
    reply = arena_pb2.ActionReply(match_id=request.match_id, request_id=request.request_id)
    reply.action.type_url = request.legal_actions[0].type_url
    reply.action.value = b"\xff\xff\xff\xff garbage"
    send(arena_pb2.BotMessage(reply=reply))


if __name__ == "__main__":
    run(answer_garbage)
