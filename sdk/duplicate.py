"""Duplicate play: one seed in every seat order, scored by pairwise places.

Comparing bot A with bot B on one seed, every assignment of A and B to the seats is played
(each on at least one seat), so the seed's luck falls on both alike. In each match, every pair
of a seat of A and a seat of B scores 1 for A's better place, 1/2 for the same, 0 for a worse;
the seed's score is the mean over its matches. Seeds are the independent units an SPRT
(``sprt``) decides on. ``kingmaker duel`` plays them locally, and the server plays them between
registered bots (``Duel``, ``submit --ab``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def arrangements(players: int) -> list[tuple[bool, ...]]:
    """Every assignment of A (True) and B (False) to the seats with each on at least one seat."""
    return [
        seats for seats in itertools.product((True, False), repeat=players) if any(seats) and not all(seats)
    ]


def pairwise_score(ranks: Sequence[int], is_a: Sequence[bool]) -> float:
    """A's mean pairwise score against B in one match (1 better place, 1/2 same, 0 worse)."""
    pairs = [
        1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0
        for a in range(len(ranks))
        if is_a[a]
        for b in range(len(ranks))
        if not is_a[b]
    ]
    return sum(pairs) / len(pairs)
