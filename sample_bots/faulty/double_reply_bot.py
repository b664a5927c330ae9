"""Answers every request twice."""

from __future__ import annotations

from kingmaker.sample_bots.faulty.raw import Send, reply, run
from kingmaker.v1 import arena_pb2


def on_request(request: arena_pb2.ActionRequest, send: Send) -> None:
    send(reply(request))
    send(reply(request))


if __name__ == "__main__":
    run(on_request)
