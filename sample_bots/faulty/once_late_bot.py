"""Late once in every match, and otherwise instant: its first decision of each match is answered
``LATE_SECONDS`` (environment, default 1.0) after the request, from a timer, while every later
request is answered at once. The honest-but-slow-once bot: one strike a match, never more.

It answers the late decision from a timer rather than by sleeping, so the requests that follow
are answered in time (a bot that blocks would be late for those too)."""

from __future__ import annotations

import os
import threading

from kingmaker.sample_bots.faulty.raw import Send, reply, run
from kingmaker.v1 import arena_pb2

LATE_SECONDS = float(os.environ.get("LATE_SECONDS", "1.0"))
seen: set[str] = set()


def on_request(request: arena_pb2.ActionRequest, send: Send) -> None:
    if request.match_id in seen:
        send(reply(request))
        return
    seen.add(request.match_id)
    threading.Timer(LATE_SECONDS, send, (reply(request),)).start()


if __name__ == "__main__":
    run(on_request)
