"""After a few good replies, sends bytes on the stream that are no message at all: not a
``BotMessage``, so the server cannot read it, nor anything after it on that stream.

Unlike ``garbage_bot`` (a well-formed reply whose action does not decode), this breaks the stream
itself; it speaks raw gRPC (see ``raw.py``), because no client library sends such bytes.
"""

from __future__ import annotations

from kingmaker.sample_bots.faulty.raw import Send, run_faulty
from kingmaker.v1 import arena_pb2

UNDECODABLE = b"\xff\xff\xff\xff not a message"
"""A field tag of wire type 7, which protobuf does not have: every decoder stops at the first byte."""


def send_undecodable(request: arena_pb2.ActionRequest, send: Send) -> None:
    send(UNDECODABLE)


if __name__ == "__main__":
    run_faulty(send_undecodable)
