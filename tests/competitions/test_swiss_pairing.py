"""The Swiss pairing (``swiss_pairing``) over many random fields of 5 to 40 entries at 2 to 5
seats, played for several rounds with random results: tables within score groups, no avoidable
repeated pair, byes bounded, table sizes within the seat range."""

from __future__ import annotations

import itertools
import random
import time
from collections import Counter

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kingmaker.ladder.competitions.swiss_pairing import (
    Round,
    pair_key,
    repeats,
    spread,
    swiss_round,
    table_sizes,
)


class Field:
    """A Swiss in progress: points, meetings and byes so far."""

    def __init__(self, entries: int) -> None:
        self.seeds = list(range(entries))
        self.points: dict[int, float] = dict.fromkeys(self.seeds, 0.0)
        self.met: Counter[tuple[int, int]] = Counter()
        self.byes: Counter[int] = Counter()

    def ranked(self) -> list[int]:
        return sorted(self.seeds, key=lambda bot: (-self.points[bot], bot))

    def pair(self, seats: int) -> Round:
        return swiss_round(self.ranked(), self.points, self.met, self.byes, seats)

    def play(self, played: Round, rng: random.Random) -> None:
        for table in played.tables:
            order = list(table)
            rng.shuffle(order)
            for place, bot in enumerate(order):
                self.points[bot] += (len(order) - 1 - place) / (len(order) - 1)
            for a, b in itertools.combinations(table, 2):
                self.met[pair_key(a, b)] += 1
        for bot in played.byes:
            self.points[bot] += 1.0
            self.byes[bot] += 1


def fewest_repeats(bots: list[int], sizes: list[int], met: Counter[tuple[int, int]]) -> int:
    """The true minimum by trying every seating (small fields only)."""
    best = None

    def seat(rest: list[int], left: list[int], total: int) -> None:
        nonlocal best
        if best is not None and total >= best:
            return
        if not rest:
            best = total
            return
        head, others = rest[0], rest[1:]
        for size in set(left):
            after = list(left)
            after.remove(size)
            for mates in itertools.combinations(others, size - 1):
                table = (head, *mates)
                seat([b for b in others if b not in mates], after, total + repeats(table, met))

    seat(bots, sizes, 0)
    assert best is not None
    return best


def check(field: Field, played: Round, seats: int) -> None:
    everyone = [bot for table in played.tables for bot in table] + list(played.byes)
    assert sorted(everyone) == field.seeds, "everyone sits once"
    sizes, bye_count = table_sizes(len(field.seeds), seats)
    assert sorted(len(t) for t in played.tables) == sorted(sizes) and len(played.byes) == bye_count
    assert all(2 <= len(t) <= seats for t in played.tables)
    assert max(sizes) - min(sizes) <= 1
    assert bye_count == (1 if seats == 2 and len(field.seeds) % 2 else 0), "a bye only where no table fits"
    for bot in played.byes:  # nobody sits out twice while another has not sat out
        assert all(field.byes[bot] <= field.byes[other] for other in field.seeds if other not in played.byes)
    # No exchange of two entries between tables seats them better (fewer repeats, closer scores).
    for first, second in itertools.combinations(played.tables, 2):
        before = (repeats(first, field.met) + repeats(second, field.met),
                  spread(first, field.points) + spread(second, field.points))  # fmt: skip
        for i, j in itertools.product(range(len(first)), range(len(second))):
            a = [*first[:i], second[j], *first[i + 1 :]]
            b = [*second[:j], first[i], *second[j + 1 :]]
            after = (repeats(a, field.met) + repeats(b, field.met),
                     spread(a, field.points) + spread(b, field.points))  # fmt: skip
            assert not (after[0] < before[0] or (after[0] == before[0] and after[1] < before[1] - 1e-9))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.integers(5, 40), seats=st.integers(2, 5), seed=st.integers(0, 2**32))
# A full run found this field: by its 7th round proving that no seating had 14 repeats or fewer
# spent the search's whole budget, and the greedy seating (16) was taken where one of 15 existed.
@example(entries=10, seats=4, seed=1926)
def test_random_swiss_rounds_keep_every_rule(entries: int, seats: int, seed: int) -> None:
    rng = random.Random(seed)
    field = Field(entries)
    rounds = rng.randint(1, 7)
    for number in range(rounds):
        played = field.pair(seats)
        check(field, played, seats)
        seated = [bot for table in played.tables for bot in table]
        sizes = sorted((len(t) for t in played.tables), reverse=True)
        if len(seated) <= 10:
            assert played.repeats == fewest_repeats(sorted(seated), sizes, field.met), "no avoidable repeat"
        # A seating with no repeat exists while each entry has met fewer others than there are
        # tables (Hajnal-Szemeredi), or, in pairs, fewer than half the field (Dirac).
        most_met = max(sum(1 for other in seated if other != bot and field.met[pair_key(bot, other)])
                       for bot in seated)  # fmt: skip
        if (seats == 2 and most_met < len(seated) // 2) or most_met < len(played.tables):
            assert played.repeats == 0, f"round {number + 1}: a repeat that could be avoided"
        field.play(played, rng)


def test_round_one_is_the_ranking_in_score_groups() -> None:
    field = Field(8)
    assert field.pair(2).tables == ((0, 4), (1, 5), (2, 6), (3, 7))  # Dutch: top half v bottom half
    assert Field(7).pair(4).tables == ((0, 1, 2, 3), (4, 5, 6))  # the leaders together, 4 + 3
    assert Field(7).pair(2).byes == (6,)  # the lowest ranked sits out


def test_a_pair_never_meets_again_while_another_pairing_exists() -> None:
    field = Field(4)  # 0 and 1 lead with a point each, and met already
    field.met.update({(0, 1): 1, (2, 3): 1})
    field.points.update({0: 1.0, 1: 1.0})
    played = field.pair(2)
    assert played.repeats == 0 and played.tables == ((0, 2), (1, 3))


def test_table_sizes_within_the_seat_range() -> None:
    assert table_sizes(7, 4) == ([4, 3], 0)
    assert table_sizes(10, 4) == ([4, 3, 3], 0)
    assert table_sizes(5, 2) == ([2, 2], 1)
    assert table_sizes(11, 5) == ([4, 4, 3], 0)
    assert table_sizes(7, 3, fewest=3) == ([3, 3], 1)


def test_forty_entries_are_paired_quickly_round_after_round() -> None:
    rng = random.Random(7)
    for seats in (2, 3, 4, 5):
        field = Field(40)
        for _ in range(9):
            start = time.perf_counter()
            played = field.pair(seats)
            assert time.perf_counter() - start < 10.0
            field.play(played, rng)
