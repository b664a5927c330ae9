"""Answers every decision after the first few too late: half a second past its deadline, or
``SLOW_SECONDS`` if that is set."""

from __future__ import annotations

import os
import time

from kingmaker.sample_bots.faulty.common import FaultyBot
from kingmaker.sdk import Request, run


class SlowBot(FaultyBot):
    name = "slow"

    def misbehave(self, request: Request) -> object:
        late = request.deadline_ms / 1000 + 0.5
        time.sleep(float(os.environ.get("SLOW_SECONDS", late)))
        return 0


if __name__ == "__main__":
    run(SlowBot())
