"""Answers every decision after the first few too late: it computes (burns CPU) until it has
used half a second more than its deadline, or ``SLOW_SECONDS`` of CPU if that is set.

It burns CPU rather than sleeping because the referee charges a launched bot the CPU time it
uses, not the time it waits (see docs/protocol.md): a bot that merely sleeps is late only past
the wall-clock ceiling, which ``hang_bot`` shows."""

from __future__ import annotations

import os
import time

from kingmaker.sample_bots.faulty.common import FaultyBot
from kingmaker.sdk import Request, run


class SlowBot(FaultyBot):
    name = "slow"

    def misbehave(self, request: Request) -> object:
        late = float(os.environ.get("SLOW_SECONDS", request.deadline_ms / 1000 + 0.5))
        until = time.process_time() + late
        while time.process_time() < until:
            pass
        return 0


if __name__ == "__main__":
    run(SlowBot())
