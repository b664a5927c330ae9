"""The bracket's arithmetic: byes go to the best seeds, the best two meet only in the final."""

from __future__ import annotations

from kingmaker.ladder.competitions.brackets import bracket_size, first_stage, next_stage, seed_order, stages


def test_seed_order_pairs_best_with_worst() -> None:
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    for size in (2, 4, 8, 16, 32):
        order = seed_order(size)
        assert sorted(order) == list(range(1, size + 1))
        assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))


def test_byes_go_to_the_best_seeds() -> None:
    # bot ids 10..14 are seeds 1..5 in a bracket of 8: seeds 1, 2, 3 get byes.
    pairs = first_stage([10, 11, 12, 13, 14])
    assert len(pairs) == 4
    byes = sorted(a if b is None else b for a, b in pairs if None in (a, b))
    assert byes == [10, 11, 12]
    assert (13, 14) in pairs or (14, 13) in pairs
    assert bracket_size(5) == 8 and stages(5) == 3 and stages(2) == 1 and stages(3) == 2


def test_the_best_two_meet_only_in_the_final() -> None:
    seeded = list(range(1, 17))
    pairs = first_stage(seeded)
    # Let the better seed win everywhere: the final must be seed 1 against seed 2.
    while len(pairs) > 1:
        winners = [min(a, b) for a, b in pairs if a is not None and b is not None]
        pairs = next_stage(winners)
    assert pairs == [(1, 2)]
