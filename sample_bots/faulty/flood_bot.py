"""After a few good replies, sends a hundred replies to every request."""

from __future__ import annotations

import os

from kingmaker.sample_bots.faulty.raw import Send, reply, run
from kingmaker.v1 import arena_pb2

FAULT_AFTER = int(os.environ.get("FAULT_AFTER", "2"))
answered = 0


def on_request(request: arena_pb2.ActionRequest, send: Send) -> None:
    global answered
    answered += 1
    for _ in range(1 if answered <= FAULT_AFTER else 100):
        send(reply(request))


if __name__ == "__main__":
    run(on_request)
