"""After a few good replies, closes its stream but keeps its process alive (a dropped connection)."""

from __future__ import annotations

import time

from kingmaker.sample_bots.faulty.raw import Send, run_faulty
from kingmaker.v1 import arena_pb2


def hang_up(request: arena_pb2.ActionRequest, send: Send) -> None:
    send(None)  # ends the outgoing half of the stream: the server sees the bot leave


if __name__ == "__main__":
    run_faulty(hang_up)
    time.sleep(30)  # the process lives on; only its connection is gone
