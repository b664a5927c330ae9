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
                decided = (llr >= test.upper) | (llr <= test.lower)
                verdicts[name][live[decided]] = np.where(llr[decided] >= test.upper, 1, -1)
                lengths[name][live[decided]] = start + step + 1
                active[name] = live[~decided]
    return {name: Outcome(verdicts[name], lengths[name]) for name in rules}


def seed_chunk(model: SeedModel, score: float, runs: int, seed: int, start: int) -> NDArray[np.int64]:
    """Seeds ``start`` to ``start + CHUNK`` of every run, from (seed, start): the same for every rule."""
    return model.sample(score, (runs, CHUNK), np.random.default_rng([seed, start]))


def error_rate(outcome: Outcome, at_elo1: bool) -> float:
    """False positives at elo0 (H1 accepted), misses at elo1 (H1 not accepted)."""
    errors = outcome.runs - outcome.h1 if at_elo1 else outcome.h1
    return errors / outcome.runs


MODELS = [SeedModel(2, 0.0), SeedModel(2, 0.3), SeedModel(3, 0.0), SeedModel(3, 0.3)]


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
    console = Console(width=160)
    console.print(table)
    console.print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
