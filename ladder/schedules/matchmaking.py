"""Continuous ladder: matchmaking that keeps going until a match count or a time budget.

Each call picks one group:

1. the *anchor* is the active bot with the fewest matches in this league; among equals the one
   with the highest sigma (the newest, least known), then a seeded coin;
2. the other seats go to the bots with the lowest cost
   ``|mu - anchor mu| / beta + (matches - fewest matches)``: one beta of skill gap weighs as much
   as one extra match played, so opponents are near in skill but nobody is left behind;
3. the seats are shuffled by a generator seeded from the league seed and the group index, so no
   bot keeps the first seat (balanced in expectation rather than exactly, as play is open-ended).

It stops (returns no group) once ``max_matches`` matches are planned, once ``elapsed_s`` reaches
``time_budget_s``, or when fewer active bots remain than a match has seats. With neither limit set
it runs until stopped. Counts should include planned matches that have not finished yet, so a batch
of calls spreads over the bots.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from kingmaker.ladder.schedules.base import Progress, Schedule, derive_seed

DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3
BETA = 25.0 / 6
"""The skill gap of one beta (TrueSkill's default) counts as much as one extra match."""


class Matchmaker(Schedule):
    def __init__(
        self,
        bots: Sequence[int],
        players: int,
        league_seed: int,
        *,
        duplicate: bool = False,
        max_matches: int | None = None,
        time_budget_s: float | None = None,
    ) -> None:
        super().__init__(bots, players, league_seed, duplicate=duplicate)
        self.max_matches = max_matches
        self.time_budget_s = time_budget_s

    def next_group(self, progress: Progress) -> tuple[int, ...] | None:
        if self.max_matches is not None and progress.matches_planned >= self.max_matches:
            return None
        if self.time_budget_s is not None and progress.elapsed_s >= self.time_budget_s:
            return None
        pool = [bot for bot in self.bots if progress.active is None or bot in progress.active]
        if len(pool) < self.players:
            return None
        coin = random.Random(derive_seed(self.league_seed, progress.groups_planned))
        tiebreak = {bot: coin.random() for bot in pool}

        def count(bot: int) -> int:
            return progress.counts.get(bot, 0)

        def rating(bot: int) -> tuple[float, float]:
            return progress.ratings.get(bot, (DEFAULT_MU, DEFAULT_SIGMA))

        anchor = min(pool, key=lambda bot: (count(bot), -rating(bot)[1], tiebreak[bot]))
        others = [bot for bot in pool if bot != anchor]
        fewest = min(count(bot) for bot in others)
        anchor_mu = rating(anchor)[0]

        def cost(bot: int) -> tuple[float, float]:
            gap = abs(rating(bot)[0] - anchor_mu) / BETA
            return gap + (count(bot) - fewest), tiebreak[bot]

        chosen = [anchor, *sorted(others, key=cost)[: self.players - 1]]
        coin.shuffle(chosen)
        return tuple(chosen)
