"""A random bot for every kingmaker game, with the Python SDK (docs/writing-a-bot.md).

The SDK connects to $KINGMAKER_SERVER with $KINGMAKER_TOKEN and decodes every request into the
game's own typed values (``kingmaker.games.<game>``): ``request.observation`` is a
``kingdoms.Observation``, a ``kingsville.KingsvilleObservation``... and ``request.legal_actions`` are the
game's action dataclasses. ``act`` returns one of them or its index.
"""

from __future__ import annotations

import random

from kingmaker.games import kingdoms, kings_road, kingsburg, kingsville
from kingmaker.sdk import Bot, Request, run

OBSERVATIONS = (
    kingdoms.Observation,
    kings_road.Observation,
    kingsburg.Observation,
    kingsville.KingsvilleObservation,
)


class RandomBot(Bot):
    def __init__(self) -> None:
        self.random = random.Random()

    def act(self, request: Request) -> int:
        # Your bot thinks here, e.g. `if isinstance(request.observation, kingdoms.Observation):`.
        assert isinstance(request.observation, OBSERVATIONS), f"a game this bot does not know: {request.game}"
        return self.random.randrange(len(request.legal_actions))


if __name__ == "__main__":
    run(RandomBot())
