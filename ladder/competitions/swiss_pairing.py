"""A Swiss round's tables, as pure arithmetic (no database): who sits out, how many tables of
which sizes, and who sits at each, given the entries' points, who met whom and who sat out before.

The rules (docs/competitions.md, "Swiss"):

1. **Table sizes.** As few tables as hold the field at ``most`` seats, as even as can be (7 at 4
   seats: 4 + 3; 10: 4 + 3 + 3), never below the game's ``fewest`` seats. Only when no such split
   exists (an odd field at 2 seats) do the fewest entries possible sit out: a **bye**.
2. **Byes.** Those who sat out least often first (so nobody sits out twice while another has not),
   then the fewest points, then the lowest ranked.
3. **Tables.** The entries are ranked by points, then seed. The fewest repeated pairs come first
   (a pair that met twice counts twice): a search over the tables top down (the best unseated
   entry heads the next table) finds the first seating, in ranking order, with no repeated pair;
   only if none exists, the first with the fewest (a branch and bound: each seating found sets
   the most the next may have). A search that runs past ``NODE_BUDGET`` steps takes the best it
   found, at worst a greedy seating. For 2 seats the candidates come in the Dutch order of
   FIDE's C.04: the entry half a score group below first, then the nearest in that score group,
   then the next score groups down. For 3 to 5 seats, in ranking order: the leaders together.
4. **Repair.** Then, while an exchange of two entries between two tables gives fewer repeated
   pairs, or as few and closer scores at the tables (the sum of the squared differences of points
   between table mates), the best such exchange is made. So no exchange of two entries would
   improve the seating: the property the tests check over random fields.

Deterministic: the same field gives the same tables, so a round's plan read again after a crash
is the round that was played.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

NODE_BUDGET = 20_000
"""Search steps in all: bounds a round of 40 entries to well under a second, whatever the history."""

Met = Mapping[tuple[int, int], int]
"""How often each pair met (the smaller id first)."""


@dataclass(frozen=True)
class Round:
    tables: tuple[tuple[int, ...], ...]
    """Best table first; each best entry first."""
    byes: tuple[int, ...]
    repeats: int
    """Repeated pairs at the tables (a pair that met twice before counts twice)."""


def table_sizes(count: int, most: int, fewest: int = 2) -> tuple[list[int], int]:
    """(sizes of the tables, largest first; how many sit out) for ``count`` entries."""
    for byes in range(count + 1):
        seated = count - byes
        if seated == 0:
            return [], byes
        tables = -(-seated // most)
        small = seated // tables
        if small >= fewest:
            large = seated % tables
            return [small + 1] * large + [small] * (tables - large), byes
    return [], count


def pair_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def swiss_round(
    ranked: Sequence[int],
    points: Mapping[int, float],
    met: Met,
    byes_had: Mapping[int, int],
    most: int,
    fewest: int = 2,
) -> Round:
    """The round's tables and byes for ``ranked`` (best first: points, then seed)."""
    return _cached(
        tuple(ranked),
        tuple(sorted(points.items())),
        tuple(sorted((key, count) for key, count in met.items() if count)),
        tuple(sorted(byes_had.items())),
        most,
        fewest,
    )


@lru_cache(maxsize=64)
def _cached(
    ranked: tuple[int, ...],
    points_items: tuple[tuple[int, float], ...],
    met_items: tuple[tuple[tuple[int, int], int], ...],
    byes_items: tuple[tuple[int, int], ...],
    most: int,
    fewest: int,
) -> Round:
    points, met, byes_had = dict(points_items), dict(met_items), dict(byes_items)
    sizes, bye_count = table_sizes(len(ranked), most, fewest)
    place = {bot: index for index, bot in enumerate(ranked)}
    byes = sorted(ranked, key=lambda bot: (byes_had.get(bot, 0), points.get(bot, 0.0), -place[bot]))
    sitting_out = tuple(sorted(byes[:bye_count], key=place.__getitem__))
    seated = [bot for bot in ranked if bot not in sitting_out]
    tables = _Seating(seated, points, met, sizes).search()
    tables = _repair(tables, points, met)
    ordered = tuple(
        sorted((tuple(sorted(table, key=place.__getitem__)) for table in tables), key=lambda t: place[t[0]])
    )
    return Round(ordered, sitting_out, sum(repeats(table, met) for table in ordered))


def repeats(table: Sequence[int], met: Met) -> int:
    return sum(met.get(pair_key(a, b), 0) for a, b in itertools.combinations(table, 2))


def spread(table: Sequence[int], points: Mapping[int, float]) -> float:
    """How far apart the table mates' points are: the sum of the squared differences."""
    return sum((points.get(a, 0.0) - points.get(b, 0.0)) ** 2 for a, b in itertools.combinations(table, 2))


class _Seating:
    """The search of rule 3: the first seating in candidate order with the fewest repeated pairs."""

    def __init__(self, seated: list[int], points: Mapping[int, float], met: Met, sizes: list[int]) -> None:
        self.seated, self.points, self.met, self.sizes = seated, points, met, sizes
        self.index = {bot: i for i, bot in enumerate(seated)}
        self.steps = 0
        self.best: list[list[int]] = []
        self.best_repeats = 0
        self.cap = 0
        """The most repeated pairs a seating may have to be kept: always fewer than the best's."""

    def search(self) -> list[list[int]]:
        """The first seating with no repeated pair; else, by branch and bound, the first with the
        fewest; once ``NODE_BUDGET`` steps are spent, the best found so far (at worst the greedy
        seating: each seat to the first entry that adds the fewest repeats)."""
        if not self.seated:
            return []
        self.best = _repair(self._greedy(), self.points, self.met)
        self.best_repeats = sum(repeats(table, self.met) for table in self.best)
        self.steps = 0
        # None first: where the field allows it, the search that prunes hardest finds it fastest.
        if self.best_repeats > 0:
            self._look(cap=0)
        # Then every seating with fewer than the best so far; a seating is kept only when it has
        # fewer, so the one kept last is the first, in candidate order, of the fewest.
        if self.best_repeats > 1 and self.steps <= NODE_BUDGET:
            self._look(cap=self.best_repeats - 1)
        return self.best

    def _look(self, cap: int) -> None:
        self.cap = cap
        self._table(tuple(self.sizes), list(self.seated), [], 0)

    def _keep(self, seating: list[list[int]], spent: int) -> None:
        self.best, self.best_repeats, self.cap = seating, spent, spent - 1

    def _greedy(self) -> list[list[int]]:
        unseated, tables = list(self.seated), []
        for size in self.sizes:
            table = [unseated.pop(0)]
            while len(table) < size:
                options = self._candidates(size, table, unseated) or unseated
                best = min(options, key=lambda bot: sum(self.met.get(pair_key(bot, m), 0) for m in table))
                table.append(best)
                unseated.remove(best)
            tables.append(table)
        return tables

    def _table(self, sizes: tuple[int, ...], unseated: list[int], done: list[list[int]], spent: int) -> bool:
        """Seat the next table, headed by the best unseated entry (of each size left, larger
        first), and the rest after it; True once the search is over (none better can exist, or
        the budget is spent)."""
        if not unseated:
            self._keep(done, spent)
            return self.cap < 0
        if spent == self.cap and not self._each_can_sit(unseated, sizes):
            return False
        for size in sorted(set(sizes), reverse=True):
            left = list(sizes)
            left.remove(size)
            if self._fill(size, tuple(left), [unseated[0]], unseated[1:], done, spent):
                return True
        return False

    def _fill(
        self, size: int, sizes: tuple[int, ...], table: list[int], rest: list[int], done: list[list[int]],
        spent: int,
    ) -> bool:  # fmt: skip
        if len(table) == size:
            return self._table(sizes, rest, [*done, table], spent)
        for candidate in self._candidates(size, table, rest):
            self.steps += 1
            if self.steps > NODE_BUDGET:
                return True
            cost = sum(self.met.get(pair_key(candidate, mate), 0) for mate in table)
            if spent + cost > self.cap:
                continue
            left = [bot for bot in rest if bot != candidate]
            if self._fill(size, sizes, [*table, candidate], left, done, spent + cost):
                return True
        return False

    def _candidates(self, size: int, table: list[int], rest: list[int]) -> list[int]:
        if len(table) > 1:  # later seats in ranking order, after the last one taken (no permutations)
            return [bot for bot in rest if self.index[bot] > self.index[table[-1]]]
        if size != 2 or max(self.sizes) != 2:
            return rest
        head = table[0]  # the Dutch order: half a score group below, then the nearest, then down
        group = [bot for bot in rest if self.points.get(bot, 0.0) == self.points.get(head, 0.0)]
        ideal = (len(group) + 1) // 2 - 1 if group else 0
        near = sorted(range(len(group)), key=lambda i: (abs(i - ideal), -i))
        return [group[i] for i in near] + [bot for bot in rest if bot not in group]

    def _each_can_sit(self, unseated: list[int], sizes: Sequence[int]) -> bool:
        """With no repeat left to spend: each entry still has enough entries it never met."""
        need = min(sizes) - 1
        for bot in unseated:
            fresh = sum(1 for other in unseated if other != bot and not self.met.get(pair_key(bot, other)))
            if fresh < need:
                return False
        return True


def _repair(tables: list[list[int]], points: Mapping[int, float], met: Met) -> list[list[int]]:
    """Rule 4: make the best exchange of two entries between tables while one improves."""
    tables = [list(table) for table in tables]
    for _ in range(len(tables) * sum(len(t) for t in tables) + 1):
        best: tuple[tuple[int, float], int, int, int, int] | None = None
        for first, second in itertools.combinations(range(len(tables)), 2):
            for i, a in enumerate(tables[first]):
                for j, b in enumerate(tables[second]):
                    gain = _swap_gain(tables[first], a, tables[second], b, points, met)
                    if gain > (0, 1e-9) and (best is None or gain > best[0]):
                        best = (gain, first, i, second, j)
        if best is None:
            return tables
        _, first, i, second, j = best
        tables[first][i], tables[second][j] = tables[second][j], tables[first][i]
    return tables


def _swap_gain(
    first: list[int], a: int, second: list[int], b: int, points: Mapping[int, float], met: Met
) -> tuple[int, float]:
    """(repeats saved, spread saved) by exchanging ``a`` of ``first`` with ``b`` of ``second``."""
    saved, closer = 0, 0.0
    pa, pb = points.get(a, 0.0), points.get(b, 0.0)
    for mate in first:
        if mate != a:
            pm = points.get(mate, 0.0)
            saved += met.get(pair_key(a, mate), 0) - met.get(pair_key(b, mate), 0)
            closer += (pa - pm) ** 2 - (pb - pm) ** 2
    for mate in second:
        if mate != b:
            pm = points.get(mate, 0.0)
            saved += met.get(pair_key(b, mate), 0) - met.get(pair_key(a, mate), 0)
            closer += (pb - pm) ** 2 - (pa - pm) ** 2
    return saved, closer
