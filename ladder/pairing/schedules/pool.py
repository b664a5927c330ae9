"""The bots a continuous ladder may seat, as its matchmaker reads them (``matchmaking``).

A ``Pool`` answers the three questions the matchmaker asks for each group, each with a bounded
answer: who has played least, who is nearest a rating, and when given pairs last met. The league
store answers them from maintained rows with indexed reads (``ladder.league_pool``), so planning a
group costs the same with 10 bots or 10,000 and after 10 matches or a million; ``MemoryPool``
answers them from dictionaries, for simulations and tests. Both must answer alike (same order,
same ties), so that a simulated league plans what the real one would.

"Present" bots are those that may be seated now: entered and not left, enabled, not suspended,
and (for a remote bot) not away.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Contender:
    """A present bot as the matchmaker sees it."""

    bot_id: int
    planned: int
    """Matches planned for it in this league so far."""
    mu: float
    sigma: float


class Pool(Protocol):
    def fewest_planned(self, limit: int) -> list[Contender]:
        """Up to ``limit`` present bots, fewest matches planned first (equal counts: lowest id
        first)."""
        ...

    def nearest(self, bot: Contender, limit: int) -> list[Contender]:
        """Up to ``limit`` present bots other than ``bot``, nearest its mu first (equal gaps:
        lowest id first)."""
        ...

    def last_met(self, bot: int, others: Sequence[int]) -> dict[int, int]:
        """For each of ``others`` that has met ``bot`` in this league: the index of the last
        group they met in (the others are left out)."""
        ...


def pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


@dataclass
class MemoryPool:
    """A pool held in memory: give it the bots, then tell it each planned group (``planned``)
    and each new rating (``rated``), as the league store does."""

    ratings: dict[int, tuple[float, float]]
    """Present bots and their (mu, sigma)."""
    counts: dict[int, int] = field(default_factory=dict)
    met: dict[tuple[int, int], int] = field(default_factory=dict)
    """(lower id, higher id) -> the last group index they met in."""

    def fewest_planned(self, limit: int) -> list[Contender]:
        everyone = sorted(self._contenders(), key=lambda c: (c.planned, c.bot_id))
        return everyone[:limit]

    def nearest(self, bot: Contender, limit: int) -> list[Contender]:
        others = (c for c in self._contenders() if c.bot_id != bot.bot_id)
        return sorted(others, key=lambda c: (abs(c.mu - bot.mu), c.bot_id))[:limit]

    def last_met(self, bot: int, others: Sequence[int]) -> dict[int, int]:
        return {other: self.met[pair(bot, other)] for other in others if pair(bot, other) in self.met}

    def planned(self, bots: Iterable[int], group: int, matches: int = 1) -> None:
        """A group of these bots was planned (``matches`` matches: one per rotation in duplicate)."""
        seated = list(bots)
        for bot in seated:
            self.counts[bot] = self.counts.get(bot, 0) + matches
        for a, b in itertools.combinations(seated, 2):
            self.met[pair(a, b)] = group

    def rated(self, ratings: Mapping[int, tuple[float, float]]) -> None:
        self.ratings.update(ratings)

    def _contenders(self) -> list[Contender]:
        return [
            Contender(bot, self.counts.get(bot, 0), mu, sigma) for bot, (mu, sigma) in self.ratings.items()
        ]
