"""A continuous ladder played without a referee, to see how its matchmaking mixes.

Bots of known strengths play matches planned by the real ``Matchmaker`` (through a ``MemoryPool``,
which answers as the league store's pool does, and planned ahead as the store plans) and are rated
by the ladder's own ``rate``: a league played through the store with the same outcomes plans the
very same matches (a test checks it). A
match's outcome follows TrueSkill's own model of a game: each seat performs at its bot's strength
plus normal noise of standard deviation beta, and the seats rank by performance. Used by
``bench/matchmaking.py`` and by the tests; ``mixing`` and ``misordered`` measure what came out.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kingmaker.ladder.pairing.schedules.base import Progress, Schedule
from kingmaker.ladder.pairing.schedules.matchmaking import PLAN_AHEAD, Matchmaker
from kingmaker.ladder.pairing.schedules.pool import MemoryPool, pair
from kingmaker.ladder.ratings.ratings import conservative, rate, settings_for

GAME = "simulated"
"""Rated with the default TrueSkill settings (no game overrides them)."""


@dataclass(frozen=True)
class SimulatedLadder:
    strengths: dict[int, float]
    matches: list[tuple[int, ...]]
    """The bots of each match, in plan order."""
    ratings: dict[int, tuple[float, float]]
    """Each bot's (mu, sigma) at the end."""

    def standings(self) -> list[int]:
        """Bot ids as the ladder ranks them: highest conservative rating first."""
        return sorted(self.ratings, key=lambda bot: -conservative(*self.ratings[bot]))


def spread_strengths(bots: int, betas: float) -> dict[int, float]:
    """Strengths for bots 1..``bots``, evenly spaced over ``betas`` betas, weakest first."""
    beta = settings_for(GAME).beta
    return {bot: 25.0 + beta * betas * ((bot - 1) / (bots - 1) - 0.5) for bot in range(1, bots + 1)}


def simulate(
    strengths: Mapping[int, float], players: int, matches: int, seed: int, maker: Schedule | None = None
) -> SimulatedLadder:
    """Plan and play ``matches`` matches of a ladder league with league seed ``seed``, one at a
    time, planning as the league store does: when nothing waits, ``PLAN_AHEAD`` more than needed.
    ``maker``: another schedule to plan with (reading the same ``MemoryPool``), to compare."""
    settings = settings_for(GAME)
    pool = MemoryPool(dict.fromkeys(strengths, (settings.mu, settings.sigma)))
    maker = maker or Matchmaker(players, seed, max_matches=matches)
    luck = random.Random(seed)
    waiting: deque[tuple[int, ...]] = deque()
    played: list[tuple[int, ...]] = []
    planned = 0
    while len(played) < matches:
        if not waiting:  # as the store tops up when a claim finds nothing waiting
            for _ in range(min(1 + PLAN_AHEAD, matches - planned)):
                progress = Progress(groups_planned=planned, matches_planned=planned, pool=pool)
                seated = maker.next_group(progress)
                assert seated is not None, "every bot is present: the matchmaker always has a group"
                pool.planned(seated, planned)
                waiting.append(seated)
                planned += 1
        seated = waiting.popleft()
        performance = [strengths[bot] + luck.gauss(0.0, settings.beta) for bot in seated]
        ranks = [1 + sum(other > mine for other in performance) for mine in performance]
        updated = rate(GAME, [pool.ratings[bot] for bot in seated], ranks)
        pool.rated(dict(zip(seated, updated, strict=True)))
        played.append(seated)
    return SimulatedLadder(dict(strengths), played, dict(pool.ratings))


@dataclass(frozen=True)
class Mixing:
    """How a stretch of matches mixed the bots."""

    matches: int
    pairs: int
    """Pairs of bots there are."""
    pairs_met: int
    """Pairs that met at least once."""
    largest_share: float
    """The most meetings of any one pair, over a pair's fair share (meetings if all pairs met
    equally often)."""


def mixing(matches: Sequence[tuple[int, ...]], bots: int) -> Mixing:
    meetings = Counter(pair(a, b) for seated in matches for a, b in itertools.combinations(seated, 2))
    pairs = math.comb(bots, 2)
    fair = sum(meetings.values()) / pairs
    return Mixing(len(matches), pairs, len(meetings), max(meetings.values(), default=0) / fair)


def windows(matches: Sequence[tuple[int, ...]], size: int) -> list[Sequence[tuple[int, ...]]]:
    """Consecutive stretches of ``size`` matches (a shorter last one is left out)."""
    return [matches[start : start + size] for start in range(0, len(matches) - size + 1, size)]


def misordered(ladder: SimulatedLadder) -> list[tuple[int, int]]:
    """Pairs (weaker, stronger) that the standings put the wrong way round."""
    place = {bot: index for index, bot in enumerate(ladder.standings())}
    return [
        (weak, strong)
        for weak, strong in itertools.permutations(ladder.strengths, 2)
        if ladder.strengths[weak] < ladder.strengths[strong] and place[weak] < place[strong]
    ]


def spearman(ladder: SimulatedLadder) -> float:
    """Rank correlation of the standings with the true order (1: the same order)."""
    true = sorted(ladder.strengths, key=lambda bot: -ladder.strengths[bot])
    place = {bot: index for index, bot in enumerate(ladder.standings())}
    n = len(true)
    squares = sum((place[bot] - index) ** 2 for index, bot in enumerate(true))
    return 1 - 6 * squares / (n * (n * n - 1))
