"""What the faulty bots share: play well for a while, then misbehave."""

from __future__ import annotations

import os

from kingmaker.sdk import Bot, Request


class FaultyBot(Bot):
    """Plays the first legal action ``FAULT_AFTER`` times, then calls ``misbehave`` every time."""

    def __init__(self) -> None:
        self.decisions = 0
        self.fault_after = int(os.environ.get("FAULT_AFTER", "2"))

    def act(self, request: Request) -> object:  # faulty bots answer what they like
        self.decisions += 1
        if self.decisions <= self.fault_after:
            return 0
        return self.misbehave(request)

    def misbehave(self, request: Request) -> object:
        raise NotImplementedError
