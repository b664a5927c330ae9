"""A random bot for every kingmaker game, with the Python SDK (docs/writing-a-bot.md).

The SDK connects to $KINGMAKER_SERVER with $KINGMAKER_TOKEN and decodes every request into the
game's own typed values (``kingmaker.games.<game>``): ``request.observation`` is one of the
``OBSERVATIONS`` below (their docstrings say what each field means), and ``request.legal_actions`` are the
game's action dataclasses. ``act`` returns one of them or its index.
"""

from __future__ import annotations

import random

from kingmaker.games.kingdoms.observation import Observation as KingdomsObservation
from kingmaker.games.kings_road.values import Observation as KingsRoadObservation
from kingmaker.games.kingsburg.views import Observation as KingsburgObservation
from kingmaker.games.kingsville.observation import KingsvilleObservation
from kingmaker.sdk import Bot, Request, run

OBSERVATIONS = (KingdomsObservation, KingsRoadObservation, KingsburgObservation, KingsvilleObservation)


class RandomBot(Bot):
    def __init__(self) -> None:
        self.random = random.Random()

    def act(self, request: Request) -> int:
        # Your bot thinks here, e.g. `if isinstance(request.observation, KingdomsObservation):`.
        assert isinstance(request.observation, OBSERVATIONS), f"a game this bot does not know: {request.game}"
        return self.random.randrange(len(request.legal_actions))


if __name__ == "__main__":
    run(RandomBot())
