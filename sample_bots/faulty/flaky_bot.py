"""Plays well, but answers one decision in every match too late: a strike, never a forfeit."""

from __future__ import annotations

import time

from kingmaker.sdk import Bot, MatchStart, Request, run


class FlakyBot(Bot):
    name = "flaky"

    def __init__(self) -> None:
        self.decisions = 0

    def on_match_start(self, start: MatchStart) -> None:
        self.decisions = 0

    def act(self, request: Request) -> int:
        self.decisions += 1
        if self.decisions == 3:
            time.sleep(request.deadline_ms / 1000 + 0.3)
        return 0


if __name__ == "__main__":
    run(FlakyBot())
