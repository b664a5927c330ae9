"""A seeded single-elimination bracket, as pure arithmetic: who meets whom in the first stage,
and how the winners of one stage pair up in the next. Seeds are 1 (best) to n; a bracket has room
for the next power of two, and the missing seats are byes, given to the best seeds, so seed 1
and seed 2 can meet only in the final (the usual 1-v-16, 8-v-9, ... order)."""

from __future__ import annotations

from collections.abc import Sequence


def bracket_size(entries: int) -> int:
    """The smallest power of two with room for every entry (at least 2)."""
    size = 2
    while size < entries:
        size *= 2
    return size


def seed_order(size: int) -> list[int]:
    """The seeds in bracket order for a bracket of ``size`` (a power of two): adjacent pairs meet
    first, and the sum of each pair is ``size + 1`` (1 v 8, 4 v 5, 2 v 7, 3 v 6 for 8)."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def first_stage(seeded: Sequence[int]) -> list[tuple[int | None, int | None]]:
    """The first stage's pairs of ``seeded`` (bot ids, best seed first); None is a bye."""
    order = seed_order(bracket_size(len(seeded)))
    slots = [seeded[seed - 1] if seed <= len(seeded) else None for seed in order]
    return [(slots[index], slots[index + 1]) for index in range(0, len(slots), 2)]


def next_stage(winners: Sequence[int | None]) -> list[tuple[int | None, int | None]]:
    """The next stage's pairs: the winners of adjacent pairs meet."""
    return [(winners[index], winners[index + 1]) for index in range(0, len(winners), 2)]


def stages(entries: int) -> int:
    """How many stages a bracket of ``entries`` plays until one is left."""
    return bracket_size(entries).bit_length() - 1
