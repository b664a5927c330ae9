"""A CI-sized run of bench/sprt_error_rates.py: the duel's SPRT keeps the error rates it promises.

Duels of known true Elo (0 and ``elo1``), two-seat (pentanomial) and three-seat seeds, with and
without draws: the false-positive rate must be at most alpha and the miss rate at most beta, each
plus three standard errors of a rate at its nominal value over ``RUNS`` runs (0.0146 for 0.05).
The normal approximation the duel used before exceeds that bound on the same seeds, so the check
can tell the two apart. The simulation is seeded, so a run is reproducible.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from bench_modules import load_bench

from kingmaker.sdk.sprt import Sprt, Tally, Verdict, elo_to_score

RUNS = 2000
TEST = Sprt(0, 50, 0.05, 0.05)


bench = load_bench("sprt_error_rates")


def _bound(nominal: float) -> float:
    return nominal + 3 * math.sqrt(nominal * (1 - nominal) / RUNS)


@pytest.mark.parametrize("model", bench.MODELS, ids=lambda model: model.name)
@pytest.mark.parametrize("at_elo1", [False, True], ids=["false H1 at elo0", "miss at elo1"])
def test_error_rates_are_within_nominal(model: Any, at_elo1: bool) -> None:
    true_elo, nominal = (TEST.elo1, TEST.beta) if at_elo1 else (TEST.elo0, TEST.alpha)
    rules = {"exact": (bench.exact_rule(TEST), TEST.min_units)}
    outcome = bench.simulate(TEST, model, true_elo, RUNS, 1, rules)["exact"]
    assert outcome.undecided == 0
    assert bench.error_rate(outcome, at_elo1) <= _bound(nominal)


def test_the_check_catches_the_normal_approximation() -> None:
    """The test the duel used before, on the same three-seat seeds: twice its nominal alpha."""
    model = bench.SeedModel(3, 0.0)
    rules = {"exact": (bench.exact_rule(TEST), TEST.min_units), "normal": (bench.normal_rule(TEST), 5)}
    outcomes = bench.simulate(TEST, model, TEST.elo0, RUNS, 1, rules)
    assert bench.error_rate(outcomes["exact"], False) <= _bound(TEST.alpha)
    assert bench.error_rate(outcomes["normal"], False) > _bound(TEST.alpha)


@pytest.mark.parametrize("model", bench.MODELS, ids=lambda model: model.name)
def test_the_simulated_seeds_have_the_true_score(model: Any) -> None:
    """The seat edges cancel over the seat orders: a seed's mean score is the true one."""
    score = elo_to_score(TEST.elo1)
    seeds = model.sample(score, (200, 1000), np.random.default_rng(5)) / model.denominator
    error = seeds.std() / math.sqrt(seeds.size)
    assert abs(seeds.mean() - score) < 4 * error
    assert seeds.std() > 0.05  # and they vary


def test_seed_values_are_the_duels() -> None:
    assert bench.SeedModel(2, 0.0).denominator == 4  # the pentanomial
    assert bench.SeedModel(3, 0.0).denominator == 24


def test_the_simulation_stops_where_the_duels_tally_does() -> None:
    """Replayed one seed at a time through ``Tally`` and ``Sprt.verdict``, each run ends the same."""
    model, runs = bench.SeedModel(3, 0.3), 12
    outcome = bench.simulate(TEST, model, TEST.elo1, runs, 3, {"exact": (bench.exact_rule(TEST), 1)})["exact"]
    chunks = [
        bench.seed_chunk(model, elo_to_score(TEST.elo1), runs, 3, start)
        for start in range(0, int(outcome.lengths.max()), bench.CHUNK)
    ]
    seeds = np.concatenate(chunks, axis=1)
    for run in range(runs):
        tally, verdict, played = Tally(), Verdict.CONTINUE, 0
        while verdict is Verdict.CONTINUE:
            tally.add(seeds[run, played] / model.denominator)
            played += 1
            verdict = TEST.verdict(tally)
        assert played == outcome.lengths[run]
        assert (1 if verdict is Verdict.H1 else -1) == outcome.verdicts[run]


def test_an_impossible_expected_score_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot have an expected score"):
        bench.SeedModel(2, 0.3).sample(0.95, (2, 2), np.random.default_rng(1))
