"""Gauntlet: one bot (the challenger) against a field.

Every match seats the challenger with ``players - 1`` bots of the field, each such set once per
round; the field never plays without the challenger. Seats are balanced as in the round robin, the
challenger's first, so it sits in every seat equally often (within one).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from kingmaker.ladder.pairing.schedules.base import FixedSchedule


class Gauntlet(FixedSchedule):
    def __init__(
        self,
        challenger: int,
        field: Sequence[int],
        players: int,
        league_seed: int,
        *,
        duplicate: bool = False,
        rounds: int = 1,
    ) -> None:
        if challenger in field:
            raise ValueError("the challenger cannot also be in the field")
        super().__init__([challenger, *field], players, league_seed, duplicate=duplicate, rounds=rounds)
        self.challenger = challenger
        self.field = tuple(field)
        self.focus = challenger

    def groups(self) -> list[tuple[int, ...]]:
        return [(self.challenger, *others) for others in itertools.combinations(self.field, self.players - 1)]

    def groups_per_round(self) -> int:
        return math.comb(len(self.field), self.players - 1)
