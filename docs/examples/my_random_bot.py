"""Step 1 of docs/writing-a-bot.md: a bot that picks a legal action at random."""

from __future__ import annotations

import random

from kingmaker.sdk import Bot, Request, run


class MyRandomBot(Bot):
    name = "my-random"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def act(self, request: Request) -> int:
        return self._random.randrange(len(request.legal_actions))


if __name__ == "__main__":
    run(MyRandomBot())
