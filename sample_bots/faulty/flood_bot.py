"""After a few good replies, sends a hundred replies to every request."""

from __future__ import annotations

from kingmaker.sample_bots.faulty.raw import Send, reply, run_faulty
from kingmaker.v1 import arena_pb2


def flood(request: arena_pb2.ActionRequest, send: Send) -> None:
    for _ in range(100):
        send(reply(request))


if __name__ == "__main__":
    run_faulty(flood)
