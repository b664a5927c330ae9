"""Reproducible chance for the sample bots: started with ``--seed N``, a bot draws each decision's
randomness from N and the position it is shown, not from a generator that runs across matches.
So the same match seed gives the same game however the server interleaves the bot's matches
(``kingmaker demo --seed N`` relies on it)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from kingmaker.sdk import Request


def seed_argument(argv: Sequence[str]) -> int | None:
    """N from ``--seed N`` among the arguments; None when absent."""
    for flag, value in itertools.pairwise(argv):
        if flag == "--seed":
            return int(value)
    return None


def position_rng(seed: int, request: Request) -> random.Random:
    """A generator determined by the seed, the seat and what the seat sees now."""
    return random.Random(f"{seed}:{request.game}:{request.seat}:{request.observation!r}")
