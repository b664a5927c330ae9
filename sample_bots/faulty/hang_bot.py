"""After a few good replies, stays connected and never answers again."""

from __future__ import annotations

from kingmaker.sample_bots.faulty.raw import Send, run_faulty
from kingmaker.v1 import arena_pb2


def never_answer(request: arena_pb2.ActionRequest, send: Send) -> None:
    pass


if __name__ == "__main__":
    run_faulty(never_answer)
