"""Round robin: every group of the match size meets once per round.

For 2-seat games that is every pairing; for an N-seat game, every set of N bots
(``itertools.combinations`` in entry order). Seats are chosen by the base's ``SeatBalancer`` so no
bot keeps the first seat; with ``rounds`` > 1 the whole set is played again with new seeds (and the
balancer keeps evening out the seats).
"""

from __future__ import annotations

import itertools
import math

from kingmaker.ladder.pairing.schedules.base import FixedSchedule


class RoundRobin(FixedSchedule):
    def groups(self) -> list[tuple[int, ...]]:
        return list(itertools.combinations(self.bots, self.players))

    def groups_per_round(self) -> int:
        return math.comb(len(self.bots), self.players)
