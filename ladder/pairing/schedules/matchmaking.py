"""Continuous ladder: matchmaking that keeps mixing, until a match count or a time budget.

Each group is drawn so that every pair keeps meeting while pairs near in skill meet more (after
Halite's matchmaker, with a penalty for pairs that met recently); ``docs/ladder.md`` states the
rule for users. For group number ``g``, with a generator seeded from the league seed and ``g``:

1. the *seed* is the present bot with the fewest matches planned in this league (among equals, a
   coin picks one of the ``SEED_POOL`` with the lowest ids);
2. ``k`` is drawn from Halite's heavy-tailed law, ``k = floor(s / (0.01 + u) ** 0.65)`` with ``u``
   uniform in [0, 1) and ``s`` three tenths of the other present bots (at least 1), then kept
   between one more than the seats to fill and the bots at hand: usually a few, now and then all;
3. the candidates are the ``k`` bots nearest the seed in mu (equal gaps in a random order), where
   a pair's gap shrinks the longer it has not met: ``|mu - seed mu| * I / (I + since)``.
   ``since`` counts the groups planned since the two last met (a pair that never met counts as
   having met ``I`` groups before the first), and ``I = C(n, 2) / C(seats, 2)`` is how many groups
   it takes a given pair to come round when pairs are drawn evenly (``n``: the present bots, at
   most ``NEAREST + 1``);
4. the other seats are drawn one at a time among the candidates, each weighted by
   ``min(1, (since / I) ** 2)`` for every bot already seated (a pair that just met is all but
   ruled out, one that has waited ``I`` groups is not held back at all) and by ``2 ** -extra``,
   ``extra`` being how many more matches it has planned than the seed (so counts stay even);
5. the seats are shuffled.

Only the ``NEAREST`` bots nearest the seed in mu are ever looked at, so planning a group reads a
bounded number of rows however large the league (``pool``). It stops (no group) once
``max_matches`` matches are planned or ``elapsed_s`` reaches ``time_budget_s``; with neither set
it runs until stopped. While fewer bots are present than a match has seats it plans nothing but
is not done (``done`` tells the two apart): a ladder waits for its bots.
"""

from __future__ import annotations

import math
import random

from kingmaker.ladder.pairing.schedules.base import Progress, Schedule, derive_seed
from kingmaker.ladder.pairing.schedules.pool import Contender

SEED_POOL = 8
"""How many of the least-played bots a seed's coin may fall on (among those that tie)."""
NEAREST = 32
"""The most bots looked at per group: the seed's nearest in mu."""
K_SHARE = 0.3
"""``s`` of the k law, as a share of the other present bots."""
K_EXPONENT = 0.65
K_FLOOR = 0.01
"""Halite's constants: ``k = floor(s / (K_FLOOR + u) ** K_EXPONENT)``; P(k >= x) ~ (s / x) ** 1.54."""
PENALTY_POWER = 2
"""How steeply a recent meeting weighs a pair down: ``min(1, since / I) ** PENALTY_POWER``."""
PLAN_AHEAD = 8
"""When the league store plans, how many matches beyond those asked for it plans (so that most
claims find their matches planned and read nothing else)."""
COUNT_BASE = 2.0
"""A candidate's weight is divided by this for each match it has planned beyond the seed."""
MAX_EXTRA = 30
"""Extra matches beyond this weigh no less (the weight stays a normal float)."""


class Matchmaker(Schedule):
    def __init__(
        self,
        players: int,
        league_seed: int,
        *,
        duplicate: bool = False,
        max_matches: int | None = None,
        time_budget_s: float | None = None,
    ) -> None:
        super().__init__(players, league_seed, duplicate=duplicate)
        self.max_matches = max_matches
        self.time_budget_s = time_budget_s

    def done(self, progress: Progress) -> bool:
        """Whether the ladder has reached its match count or its time budget."""
        if self.max_matches is not None and progress.matches_planned >= self.max_matches:
            return True
        return self.time_budget_s is not None and progress.elapsed_s >= self.time_budget_s

    def next_group(self, progress: Progress) -> tuple[int, ...] | None:
        if self.done(progress) or progress.pool is None:
            return None
        pool, group = progress.pool, progress.groups_planned
        coin = random.Random(derive_seed(self.league_seed, group))
        least = pool.fewest_planned(SEED_POOL)
        if not least:
            return None
        tied = [c for c in least if c.planned == least[0].planned]
        seed = coin.choice(tied)
        near = pool.nearest(seed, NEAREST)
        if len(near) < self.players - 1:
            return None
        interval = math.comb(len(near) + 1, 2) / math.comb(self.players, 2)
        met = pool.last_met(seed.bot_id, [c.bot_id for c in near])

        def since(last: int | None) -> float:
            return group - (last if last is not None else -interval)

        tiebreak = {c.bot_id: coin.random() for c in near}  # equal ratings (a new league): at random

        def closeness(c: Contender) -> tuple[float, float]:
            gap = abs(c.mu - seed.mu) * interval / (interval + since(met.get(c.bot_id)))
            return gap, tiebreak[c.bot_id]

        candidates = sorted(near, key=closeness)[: self._k(coin.random(), len(near))]
        weights = [COUNT_BASE ** -min(MAX_EXTRA, max(0, c.planned - seed.planned)) for c in candidates]
        chosen = [seed.bot_id]
        while len(chosen) < self.players:
            last = met if len(chosen) == 1 else pool.last_met(chosen[-1], [c.bot_id for c in candidates])
            for index, c in enumerate(candidates):
                if c.bot_id in chosen:
                    weights[index] = 0.0
                else:
                    weights[index] *= min(1.0, since(last.get(c.bot_id)) / interval) ** PENALTY_POWER
            if not any(weights):  # every weight underflowed: draw evenly among the rest
                weights = [0.0 if c.bot_id in chosen else 1.0 for c in candidates]
            pick = coin.choices(range(len(candidates)), weights)[0]
            chosen.append(candidates[pick].bot_id)
        coin.shuffle(chosen)
        return tuple(chosen)

    def _k(self, u: float, others: int) -> int:
        """How many of the nearest bots are candidates: the heavy-tailed draw, clamped."""
        scale = max(1.0, K_SHARE * others)
        drawn = int(scale / (K_FLOOR + u) ** K_EXPONENT)
        return max(min(self.players, others), min(others, drawn))
