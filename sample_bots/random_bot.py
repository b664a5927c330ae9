"""A bot for every game that picks a legal action uniformly at random.

Run it against a server: ``python sample_bots/random_bot.py`` with ``KINGMAKER_SERVER`` and
``KINGMAKER_TOKEN`` set (the referee sets both when it launches a bot).
"""

from __future__ import annotations

import random

from kingmaker.sample_bots.seeding import position_rng, seed_argument
from kingmaker.sdk import Bot, Request


class RandomBot(Bot):
    name = "random"

    def __init__(self, seed: int | None = None, by_position: bool = False) -> None:
        self._random = random.Random(seed)
        self._seed = seed
        self._by_position = by_position and seed is not None
        """Draw from the seed and the position (see sample_bots/seeding.py), not one generator."""

    def act(self, request: Request) -> int:
        rng = position_rng(self._seed or 0, request) if self._by_position else self._random
        return rng.randrange(len(request.legal_actions))


if __name__ == "__main__":
    import sys

    from kingmaker.sdk import run

    seed = seed_argument(sys.argv)
    run(RandomBot(seed, by_position=seed is not None))
