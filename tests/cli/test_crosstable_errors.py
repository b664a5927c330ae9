"""``league table``'s standard errors on constructed results: a clean sweep is not ``±0.00``, and a
duplicate group (one seed, its seats in every rotation) is one observation, not one per match."""

from __future__ import annotations

import math

from kingmaker.server.cli.crosstable import crosstable
from kingmaker.v1 import admin_pb2, common_pb2

FINISHED = common_pb2.END_REASON_FINISHED


def match(number: int, ranks: dict[str, int], group: int | None = None) -> admin_pb2.MatchRecord:
    """A finished, rated league match; seats in the order of ``ranks``."""
    return admin_pb2.MatchRecord(
        match_id=str(number),
        league="weekly",
        status="finished",
        rated=True,
        duplicate_group=group,
        seats=[
            common_pb2.SeatResult(seat=seat, bot=bot, rank=rank, end_reason=FINISHED)
            for seat, (bot, rank) in enumerate(ranks.items())
        ],
    )


def test_a_clean_sweep_has_an_error_that_shrinks_with_the_matches() -> None:
    errors = []
    for n in (1, 4, 16, 64):
        pair = crosstable(match(i, {"a": 1, "b": 2}) for i in range(n)).pairs[("a", "b")]
        assert pair.score == 1.0 and pair.meetings == n == pair.observations
        errors.append(pair.error)
    assert all(error > 0 for error in errors)
    assert errors == sorted(errors, reverse=True)
    # Agresti-Coull: n wins plus 2 pseudo-wins and 2 pseudo-losses.
    p = (16 + 2) / (16 + 4)
    assert math.isclose(errors[2], math.sqrt(p * (1 - p) / (16 + 4)))


def test_a_duplicate_group_is_one_observation() -> None:
    """Four seeds in both rotations: a wins every rotation of seeds 0-2 and loses both of seed 3.
    Counted per match the error would be over 8 results; it is over 4 seeds' means."""
    results = []
    for seed in range(4):
        a, b = (1, 2) if seed < 3 else (2, 1)
        results += [(seed, {"a": a, "b": b}), (seed, {"b": b, "a": a})]
    pair = crosstable(match(i, ranks, seed) for i, (seed, ranks) in enumerate(results)).pairs[("a", "b")]
    assert pair.meetings == 8 and pair.observations == 4
    assert pair.score == 0.75
    units = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]  # the 4 seeds and the pseudo-observations
    centre = sum(units) / len(units)
    expected = math.sqrt(sum((u - centre) ** 2 for u in units) / len(units) / len(units))
    assert math.isclose(pair.error, expected)
    # The same eight results taken as independent matches overstate the precision.
    apart = crosstable(match(i, ranks) for i, (_, ranks) in enumerate(results)).pairs[("a", "b")]
    assert apart.observations == 8 and apart.error < pair.error


def test_a_groups_rotations_are_averaged_before_the_error() -> None:
    """Split rotations (each bot wins one of the two) make a group's mean 1/2: no spread left in
    the groups, only the pseudo-observations'."""
    matches = [
        result
        for seed in range(10)
        for result in (match(2 * seed, {"a": 1, "b": 2}, seed), match(2 * seed + 1, {"b": 1, "a": 2}, seed))
    ]
    pair = crosstable(matches).pairs[("a", "b")]
    assert pair.score == 0.5 and pair.observations == 10
    assert math.isclose(pair.error, math.sqrt(4 * 0.25 / 14 / 14))
