"""After a few good replies, sends a reply of 8 MiB: more than the server accepts in one message.
gRPC itself then ends the stream with RESOURCE_EXHAUSTED; the process lives on."""

from __future__ import annotations

import os
import time

from kingmaker.sample_bots.faulty.raw import Send, reply, run
from kingmaker.v1 import arena_pb2

FAULT_AFTER = int(os.environ.get("FAULT_AFTER", "2"))
answered = 0


def on_request(request: arena_pb2.ActionRequest, send: Send) -> None:
    global answered
    answered += 1
    if answered <= FAULT_AFTER:
        send(reply(request))
        return
    huge = arena_pb2.ActionReply(match_id=request.match_id, request_id=request.request_id)
    huge.action.type_url = request.legal_actions[0].type_url
    huge.action.value = b"\0" * (8 * 1024 * 1024)
    send(arena_pb2.BotMessage(reply=huge))


if __name__ == "__main__":
    run(on_request)
    time.sleep(30)
