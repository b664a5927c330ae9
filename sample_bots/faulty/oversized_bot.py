"""After a few good replies, sends a reply of 8 MiB: more than the server accepts in one message.
gRPC itself then ends the stream with RESOURCE_EXHAUSTED; the process lives on."""

from __future__ import annotations

import time

from kingmaker.sample_bots.faulty.raw import Send, run_faulty
from kingmaker.v1 import arena_pb2


def send_too_much(request: arena_pb2.ActionRequest, send: Send) -> None:
    huge = arena_pb2.ActionReply(match_id=request.match_id, request_id=request.request_id)
    huge.action.type_url = request.legal_actions[0].type_url
    huge.action.value = b"\0" * (8 * 1024 * 1024)
    send(arena_pb2.BotMessage(reply=huge))


if __name__ == "__main__":
    run_faulty(send_too_much)
    time.sleep(30)
