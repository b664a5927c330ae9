"""A random bot that thinks for ``PONDER_SECONDS`` (0.6 by default, asleep) before each answer: slow
enough that a person's page shows each of its moves before the person's next decision."""

from __future__ import annotations

import os
import time

from kingmaker.sample_bots.random_bot import RandomBot
from kingmaker.sdk import Request, run


class PonderingBot(RandomBot):
    name = "pondering"

    def act(self, request: Request) -> int:
        time.sleep(float(os.environ.get("PONDER_SECONDS", "0.6")))
        return super().act(request)


if __name__ == "__main__":
    run(PonderingBot(1))
