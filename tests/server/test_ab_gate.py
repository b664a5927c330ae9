"""The A/B gate of ``submit --ab``: at its cap the LLR's sign decides, and its error rates hold.

The rule is checked on constructed duels (LLRs strictly between the bounds, so only the rule
at the cap can decide them), then the simulation of ``bench/sprt_error_rates.py`` is replayed
seed by seed through ``Tally`` and ``gate_verdict``, and a CI-sized simulation checks the rates
the docs state: per game, an equal version passes and a 50-Elo-weaker one fails, each at least
0.95 of the time, where the gate before rejected an equal version about a fifth of the time.
"""

from __future__ import annotations

import pytest
from bench_modules import load_bench

from kingmaker.sdk.sprt import Tally, Verdict, elo_to_score
from kingmaker.server.new_versions.ab_gate import AB_TEST, gate_verdict

bench = load_bench("sprt_error_rates")


@pytest.mark.parametrize(
    ("seeds", "expected"),
    [([0.5, 0.5], Verdict.H1), ([0.5, 0.25], Verdict.H0), ([0.25, 0.75, 0.5, 0.25], Verdict.H0)],
)
def test_at_the_cap_the_llrs_sign_decides(seeds: list[float], expected: Verdict) -> None:
    units = Tally.of(seeds)
    llr = AB_TEST.llr(units)
    assert AB_TEST.lower < llr < AB_TEST.upper and AB_TEST.verdict(units) is Verdict.CONTINUE
    assert (llr > 0) == (expected is Verdict.H1)
    assert gate_verdict(Verdict.CONTINUE, units, at_cap=True) is expected
    # Not at the cap (a seat the server could not fill): no verdict, which rejects.
    assert gate_verdict(Verdict.CONTINUE, units, at_cap=False) is Verdict.CONTINUE


def test_a_decided_duel_keeps_the_sprts_verdict() -> None:
    # A clean loss: H0 long before any cap, whatever the sign rule would say.
    units = Tally.of([0.0] * 30)
    assert AB_TEST.verdict(units) is Verdict.H0
    assert gate_verdict(Verdict.H0, units, at_cap=False) is Verdict.H0
    assert gate_verdict(Verdict.H1, Tally.of([0.5, 0.25]), at_cap=True) is Verdict.H1


def test_the_simulations_gate_is_the_servers() -> None:
    """Replayed through ``Tally``, ``Sprt.verdict`` and ``gate_verdict``, every simulated duel
    ends as ``bench.gate_passes`` says; a small cap makes many of them end there."""
    model, runs, matches = bench.SeedModel(2, 0.0), 60, 120  # 60 seeds: one chunk
    cap = bench.gate_seeds(model, matches)
    outcome = bench.simulate_gate(model, -25.0, runs, 7, matches=matches)
    passes = bench.gate_passes(outcome)
    seeds = bench.seed_chunk(model, elo_to_score(-25.0), runs, 7, 0)
    assert 5 <= outcome.undecided < runs, "the cap must end some duels and not all"
    for run in range(runs):
        units, verdict = Tally(), Verdict.CONTINUE
        while verdict is Verdict.CONTINUE and units.n < cap:
            units.add(seeds[run, units.n] / model.denominator)
            verdict = AB_TEST.verdict(units)
        gated = gate_verdict(verdict, units, at_cap=verdict is Verdict.CONTINUE)
        assert (gated is Verdict.H1) == passes[run], run


RUNS = 2000


@pytest.mark.parametrize("model", bench.GATE_MODELS[:2], ids=lambda model: model.name)
def test_per_game_an_equal_version_passes_and_a_weaker_one_fails(model: object) -> None:
    equal = bench.gate_passes(bench.simulate_gate(model, AB_TEST.elo1, RUNS, 1))
    weaker = bench.gate_passes(bench.simulate_gate(model, AB_TEST.elo0, RUNS, 1))
    assert 1 - equal.mean() <= 0.05
    assert weaker.mean() <= 0.05
    # The gate before, on the same seeds: an undecided duel rejected the version.
    before = bench.simulate_gate(model, AB_TEST.elo1, RUNS, 1, *bench.GATE_BEFORE)
    assert (before.verdicts != 1).mean() > 0.08
