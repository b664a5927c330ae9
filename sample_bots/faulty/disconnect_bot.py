"""After a few good replies, closes its stream but keeps its process alive (a dropped connection)."""

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
    else:
        send(None)  # ends the outgoing half of the stream: the server sees the bot leave


if __name__ == "__main__":
    run(on_request)
    time.sleep(30)  # the process lives on; only its connection is gone
