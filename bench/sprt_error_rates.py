"""Does the duel's SPRT keep the error rates it promises? Simulated duels of known true Elo.

    python bench/sprt_error_rates.py [--runs 2000] [--elo0 0] [--elo1 50] [--alpha 0.05] [--beta 0.05]
                                     [--min-units 1] [--max-units 3000] [--seed 1]

A simulated duel is the SPRT of ``kingmaker.sdk.sprt`` fed one seed score at a time, as
``kingmaker duel`` feeds it, until it decides or ``--max-units`` seeds have been played. Seeds
are played in every seat order of ``duel`` (2 seats: 2 matches, the pentanomial; 3 seats: 6
matches, scores in 24ths). In each match every pair of an A seat and a B seat has an outcome of
its own: a shared place with chance ``draws``, else a better place for A with the rest of the
chance of the pair's expected score. That expected score is the true score of A against B plus
a seat edge: each seed gives every seat an edge drawn uniformly in +-0.1 (less where the
expected score is so near 0 or 1 that the pairs would leave it), so a seed's matches
are correlated as duplicate play makes them, and since every seat order is played the edges
cancel in the mean and the true score of a seed is exactly ``elo_to_score(true Elo)``.

At true Elo ``elo0`` the table's rate is the false positives (H1 accepted), to compare with
alpha; at ``elo1`` the misses (H1 not accepted: H0, or undecided at the cap), to compare with
beta. The interval is the 95% Wilson interval of the rate. The seeds the decided runs took are
given as median (min-max): the fewest is how soon a verdict came, which a minimum number of
seeds would hold back. Beside each rate is the one that the normal approximation the duel used
before (fishtest's ``LLR_alt2``, no verdict before 5 seeds) gives on the very same seeds.

The second table is the A/B gate of ``submit --ab`` (``server/new_versions/ab_gate.py``): its test, capped at
its match count, where the LLR's sign decides. Per game, an equal version (true Elo 0) must pass
and a 50-Elo-weaker one (true Elo -50) must fail, each at least 0.95 of the time; beside each
rate, the gate as it was before (alpha = beta = 0.05, 400 matches, undecided rejects) on the same
seeds; and how often an equal version passes all of four games (duels taken four at a time).
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from rich.console import Console
from rich.table import Table

from kingmaker.sdk.duplicate import arrangements
from kingmaker.sdk.sprt import (
    PENTANOMIAL,
    Sprt,
    elo_to_score,
    log_likelihood_ratio,
    regularised,
    wilson,
)
from kingmaker.server.new_versions.ab_gate import AB_MAX_MATCHES, AB_TEST

SEAT_EDGE = 0.1
"""Each seat's edge in a seed, drawn uniformly in +-SEAT_EDGE."""
CHUNK = 64
"""Seeds generated at a time, for every run, so that both tests of a run see the same seeds."""


@dataclass(frozen=True)
class SeedModel:
    """Seeds of ``players`` seats played in every seat order; pairs share a place with chance ``draws``."""

    players: int
    draws: float

    @property
    def name(self) -> str:
        return f"{self.players} seats, {'draws ' + format(self.draws, 'g') if self.draws else 'no draws'}"

    @property
    def denominator(self) -> int:
        """Seed scores are multiples of one over this."""
        orders = arrangements(self.players)
        return 2 * len(orders) * math.lcm(*(_pair_count(order) for order in orders))

    @property
    def values(self) -> NDArray[np.float64]:
        return np.arange(self.denominator + 1) / self.denominator

    def sample(self, score: float, shape: tuple[int, int], rng: np.random.Generator) -> NDArray[np.int64]:
        """Seed scores as multiples of ``1 / denominator``, for a true expected score ``score``."""
        # Every pair's expected score must leave room for the draws: the edges shrink near 0 and 1.
        room = min(score, 1 - score) - self.draws / 2
        if room <= 0:
            raise ValueError(f"with draws {self.draws:g} a pair cannot have an expected score of {score:.3f}")
        edge = min(SEAT_EDGE, room / 2)
        edges = rng.uniform(-edge, edge, (*shape, self.players))
        halves = np.zeros(shape, dtype=np.int64)  # points in halves, weighted per match below
        orders = arrangements(self.players)
        for order in orders:
            weight = self.denominator // (2 * len(orders) * _pair_count(order))
            for a in (seat for seat, is_a in enumerate(order) if is_a):
                for b in (seat for seat, is_a in enumerate(order) if not is_a):
                    expected = score + edges[..., a] - edges[..., b]
                    draw = rng.uniform(size=shape)
                    halves += weight * np.where(
                        draw < expected - self.draws / 2, 2, np.where(draw < expected + self.draws / 2, 1, 0)
                    )
        return halves


def _pair_count(order: tuple[bool, ...]) -> int:
    return order.count(True) * order.count(False)


class Rule(Protocol):
    """A stopping rule's LLR, per run, from its seed counts (by ``values``, last axis)."""

    def __call__(self, values: NDArray[np.float64], counts: NDArray[np.float64]) -> NDArray[np.float64]: ...


def exact_rule(test: Sprt) -> Rule:
    """The duel's test: the GSPRT of ``kingmaker.sdk.sprt``."""

    def llr(values: NDArray[np.float64], counts: NDArray[np.float64]) -> NDArray[np.float64]:
        return log_likelihood_ratio(values, regularised(values, counts, PENTANOMIAL), *test.scores)

    return llr


def normal_rule(test: Sprt) -> Rule:
    """The test the duel used before: n (s1 - s0)(2 mean - s0 - s1) / (2 variance) (fishtest's LLR_alt2),
    with a pseudo-seed half at 0 and half at 1 for the variance of a clean sweep."""
    s0, s1 = test.scores

    def llr(values: NDArray[np.float64], counts: NDArray[np.float64]) -> NDArray[np.float64]:
        n = counts.sum(axis=-1)
        mean = counts @ values / n
        variance = counts @ values**2 / n - mean**2
        swept = variance <= 1e-12
        pooled = (n * mean + 0.5) / (n + 1)
        prior = (n * (mean - pooled) ** 2 + 0.5 * pooled**2 + 0.5 * (1 - pooled) ** 2) / (n + 1)
        mean = np.where(swept, pooled, mean)
        variance = np.where(swept, prior, variance)
        result: NDArray[np.float64] = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
        return result

    return llr


@dataclass(frozen=True)
class Outcome:
    """Simulated duels of one true Elo under one stopping rule."""

    verdicts: NDArray[np.int64]
    """Per run: 1 accepted H1, -1 accepted H0, 0 undecided at the cap."""
    lengths: NDArray[np.int64]
    """Per run: the seeds it took to decide (0 undecided)."""
    llrs: NDArray[np.float64]
    """Per run: the LLR when it stopped (decided, or at the cap)."""

    @property
    def runs(self) -> int:
        return self.verdicts.size

    @property
    def h1(self) -> int:
        return int((self.verdicts == 1).sum())

    @property
    def undecided(self) -> int:
        return int((self.verdicts == 0).sum())

    @property
    def decided_lengths(self) -> NDArray[np.int64]:
        decided: NDArray[np.int64] = self.lengths[self.verdicts != 0]
        return decided


def simulate(
    test: Sprt,
    model: SeedModel,
    true_elo: float,
    runs: int,
    seed: int,
    rules: dict[str, tuple[Rule, int]],
    max_units: int = 3000,
) -> dict[str, Outcome]:
    """``runs`` duels per rule (a rule and its minimum of seeds), every rule on the same seeds."""
    values, score = model.values, elo_to_score(true_elo)
    counts = {name: np.zeros((runs, values.size)) for name in rules}
    active = {name: np.arange(runs) for name in rules}
    verdicts = {name: np.zeros(runs, dtype=np.int64) for name in rules}  # 1 H1, -1 H0, 0 undecided
    lengths = {name: np.zeros(runs, dtype=np.int64) for name in rules}
    llrs = {name: np.zeros(runs) for name in rules}
    for start in range(0, max_units, CHUNK):
        if not any(live.size for live in active.values()):
            break
        seeds = seed_chunk(model, score, runs, seed, start)
        for name, (rule, min_units) in rules.items():
            for step in range(min(CHUNK, max_units - start)):
                live = active[name]
                if not live.size:
                    break
                counts[name][live, seeds[live, step]] += 1
                if start + step + 1 < min_units:
                    continue
                llr = rule(values, counts[name][live])
                llrs[name][live] = llr
                decided = (llr >= test.upper) | (llr <= test.lower)
                verdicts[name][live[decided]] = np.where(llr[decided] >= test.upper, 1, -1)
                lengths[name][live[decided]] = start + step + 1
                active[name] = live[~decided]
    return {name: Outcome(verdicts[name], lengths[name], llrs[name]) for name in rules}


def seed_chunk(model: SeedModel, score: float, runs: int, seed: int, start: int) -> NDArray[np.int64]:
    """Seeds ``start`` to ``start + CHUNK`` of every run, from (seed, start): the same for every rule."""
    return model.sample(score, (runs, CHUNK), np.random.default_rng([seed, start]))


def error_rate(outcome: Outcome, at_elo1: bool) -> float:
    """False positives at elo0 (H1 accepted), misses at elo1 (H1 not accepted)."""
    errors = outcome.runs - outcome.h1 if at_elo1 else outcome.h1
    return errors / outcome.runs


MODELS = [SeedModel(2, 0.0), SeedModel(2, 0.3), SeedModel(3, 0.0), SeedModel(3, 0.3)]
GATE_MODELS = [SeedModel(2, 0.0), SeedModel(2, 0.3), SeedModel(3, 0.0)]
GATE_BEFORE = (Sprt(-50.0, 0.0, 0.05, 0.05), 400)
"""The gate before: its test and match cap; a duel undecided at the cap rejected the version."""


def gate_passes(outcome: Outcome) -> NDArray[np.bool_]:
    """Per run, the gate's verdict (``ab_gate.gate_verdict``): H1, or undecided at the cap with an
    LLR above 0."""
    passed: NDArray[np.bool_] = (outcome.verdicts == 1) | ((outcome.verdicts == 0) & (outcome.llrs > 0))
    return passed


def gate_seeds(model: SeedModel, matches: int) -> int:
    """The seeds a duel of ``matches`` matches plays (``server/scheduling/duels.py``)."""
    return max(1, matches // len(arrangements(model.players)))


def simulate_gate(
    model: SeedModel,
    true_elo: float,
    runs: int,
    seed: int,
    test: Sprt = AB_TEST,
    matches: int = AB_MAX_MATCHES,
) -> Outcome:
    """``runs`` A/B duels of the gate's test, capped at ``matches`` matches."""
    rules = {"exact": (exact_rule(test), test.min_units)}
    return simulate(test, model, true_elo, runs, seed, rules, gate_seeds(model, matches))["exact"]


def rate_cell(errors: int, runs: int) -> str:
    low, high = wilson(errors, runs)
    return f"{errors / runs:.4f} [{low:.4f}, {high:.4f}]"


def gate_table(runs: int, seed: int) -> Table:
    """The gate's rates per game, equal and 50 Elo weaker, beside the gate before."""
    table = Table(
        title=f"A/B gate (submit --ab): Elo {AB_TEST.elo0:g}/{AB_TEST.elo1:g}, alpha={AB_TEST.alpha:g} "
        f"beta={AB_TEST.beta:g}, at most {AB_MAX_MATCHES} matches a game, the LLR's sign at the cap; "
        f"{runs} duels a row"
    )
    for column in (
        "seeds",
        "true Elo",
        "error",
        "limit",
        "rate [95%]",
        "at the cap",
        "seeds: median (min-max)",
    ):
        table.add_column(column, justify="right")
    table.add_column("before: rate", justify="right")
    table.add_column("equal: passes 4 of 4 games [95%]", justify="right")
    for model in GATE_MODELS:
        for true_elo in (AB_TEST.elo1, AB_TEST.elo0):
            equal = true_elo == AB_TEST.elo1
            outcome = simulate_gate(model, true_elo, runs, seed)
            before = simulate_gate(model, true_elo, runs, seed, *GATE_BEFORE)
            passed, passed_before = gate_passes(outcome), before.verdicts == 1
            errors = int((~passed).sum() if equal else passed.sum())
            errors_before = int((~passed_before).sum() if equal else passed_before.sum())
            lengths = np.where(outcome.lengths > 0, outcome.lengths, gate_seeds(model, AB_MAX_MATCHES))
            four = ""
            if equal:
                groups = passed[: runs - runs % 4].reshape(-1, 4).all(axis=1)
                four = rate_cell(int(groups.sum()), groups.size)
            table.add_row(
                model.name,
                f"{true_elo:g}",
                "equal rejected" if equal else "weaker passed",
                "0.05",
                rate_cell(errors, runs),
                str(outcome.undecided),
                f"{np.median(lengths):.0f} ({lengths.min()}-{lengths.max()})",
                f"{errors_before / runs:.4f}",
                four,
            )
    return table


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=50.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--min-units", type=int, default=Sprt.min_units)
    parser.add_argument("--max-units", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gate-runs", type=int, default=4000, help="A/B gate duels a row (0: no gate table)")
    args = parser.parse_args()
    test = Sprt(args.elo0, args.elo1, args.alpha, args.beta, args.min_units)
    rules = {"exact": (exact_rule(test), test.min_units), "normal": (normal_rule(test), 5)}

    table = Table(
        title=f"SPRT elo0={test.elo0:g} elo1={test.elo1:g} alpha={test.alpha:g} beta={test.beta:g}, "
        f"{args.runs} runs a row, at most {args.max_units} seeds, exact test from {test.min_units} seed(s)"
    )
    for column in ("seeds", "true Elo", "error", "nominal", "exact: rate [95%]", "seeds: median (min-max)"):
        table.add_column(column, justify="right")
    table.add_column("undecided", justify="right")
    table.add_column("before (normal, >= 5)", justify="right")
    started = time.perf_counter()
    for model in MODELS:
        for at_elo1, true_elo in ((False, test.elo0), (True, test.elo1)):
            try:
                outcomes = simulate(test, model, true_elo, args.runs, args.seed, rules, args.max_units)
            except ValueError as error:
                table.add_row(model.name, f"{true_elo:g}", "", "", str(error))
                continue
            exact, normal = outcomes["exact"], outcomes["normal"]
            lengths = exact.decided_lengths
            rate = error_rate(exact, at_elo1)
            low, high = wilson(rate * exact.runs, exact.runs)
            table.add_row(
                model.name,
                f"{true_elo:g}",
                "miss" if at_elo1 else "false H1",
                f"{test.beta if at_elo1 else test.alpha:g}",
                f"{rate:.4f} [{low:.4f}, {high:.4f}]",
                f"{np.median(lengths):.0f} ({lengths.min()}-{lengths.max()})",
                str(exact.undecided),
                f"{error_rate(normal, at_elo1):.4f}",
            )
    console = Console(width=200)
    console.print(table)
    if args.gate_runs:
        console.print(gate_table(args.gate_runs, args.seed))
    console.print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
