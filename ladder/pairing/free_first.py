"""Which of a league's waiting matches to claim: those whose bots are all free first.

A bot already in play would need a second process for a match that could as well wait, so a
claim takes the matches whose bots are free, and only then the ones whose busiest bot plays the
fewest matches (``claim_window.free_first`` reads the window of waiting matches this chooses from).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection


def choose_free(
    waiting: list[tuple[int, tuple[int, ...]]], limit: int, busy: Collection[int], absent: frozenset[int]
) -> tuple[list[tuple[int, tuple[int, ...]]], bool]:
    """``limit`` matches without absent bots, free ones first, then the least busy ones (see
    ``claim_window.free_first``); and whether all were free and none absent."""
    load = Counter(busy)  # a bot's matches in play (1 each where ``busy`` is a set), and chosen here
    free: list[tuple[int, tuple[int, ...]]] = []
    rest: list[tuple[int, tuple[int, ...]]] = []
    for match_id, bots in waiting:
        if len(free) >= limit:
            break  # the rest is chosen from only when too few are free
        if not absent.isdisjoint(bots):
            continue
        if not any(load[bot] for bot in bots):
            free.append((match_id, bots))
            load.update(bots)
        else:
            rest.append((match_id, bots))
    all_free = len(free) == min(limit, len(waiting))
    chosen = free
    while len(chosen) < limit and rest:
        loads = [sorted((load[bot] for bot in bots), reverse=True) for _, bots in rest]
        index = min(range(len(rest)), key=lambda i: (loads[i], i))  # the busiest bot first
        chosen.append(rest.pop(index))
        load.update(chosen[-1][1])
    return chosen, all_free
