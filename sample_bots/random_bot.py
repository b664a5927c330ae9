"""A bot for every game that picks a legal action uniformly at random.

Run it against a server: ``python sample_bots/random_bot.py`` with ``KINGMAKER_SERVER`` and
``KINGMAKER_TOKEN`` set (the referee sets both when it launches a bot).
"""

from __future__ import annotations

import random

from kingmaker.sdk import Bot, Request


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def act(self, request: Request) -> int:
        return self._random.randrange(len(request.legal_actions))


if __name__ == "__main__":
    from kingmaker.sdk import run

    run(RandomBot())
