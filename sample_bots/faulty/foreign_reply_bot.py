"""After a few good replies, answers for requests and matches that are not its own."""

from __future__ import annotations

import os

from kingmaker.sample_bots.faulty.raw import Send, reply, run
from kingmaker.v1 import arena_pb2

FAULT_AFTER = int(os.environ.get("FAULT_AFTER", "2"))
answered = 0


def on_request(request: arena_pb2.ActionRequest, send: Send) -> None:
    global answered
    answered += 1
    message = reply(request)
    if answered > FAULT_AFTER:
        message.reply.request_id += 1000
        message.reply.match_id = "someone-elses-match"
    send(message)


if __name__ == "__main__":
    run(on_request)
