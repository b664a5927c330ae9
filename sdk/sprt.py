"""The sequential probability ratio test that ``kingmaker duel`` stops on, as fastchess and fishtest do.

Hypotheses are in logistic Elo: H0 "A is ``elo0`` stronger than B", H1 "A is ``elo1`` stronger".
An Elo difference maps to an expected score ``1 / (1 + 10 ** (-elo / 400))``. The log-likelihood
ratio uses the generalised SPRT's normal approximation (fishtest's ``LLR_normalized`` shape):

    LLR = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

where ``mean`` and ``variance`` are those of the per-unit scores. A unit is whatever is
independent: one game (trinomial: 1, 1/2, 0) or, for duplicate play, the average over a seed's
seat orders (pentanomial for two seats), which is what ``duel`` feeds in. The test stops for H1
once LLR >= log((1 - beta) / alpha) and for H0 once LLR <= log(beta / (1 - alpha)).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum


class Verdict(Enum):
    CONTINUE = "continue"
    H0 = "H0"
    """Accept H0: A is not ``elo1`` stronger (the change is not an improvement of that size)."""
    H1 = "H1"
    """Accept H1: A is at least about ``elo1`` stronger."""


def elo_to_score(elo: float) -> float:
    """The expected score of a player ``elo`` logistic Elo above its opponent."""
    return 1 / (1 + 10 ** (-elo / 400))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score (clamped away from 0 and 1)."""
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True)
class Sprt:
    """A configured test: ``elo0 < elo1``, ``0 < alpha, beta < 1``; ``ValueError`` otherwise."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    min_units: int = 5
    """No verdict from fewer units: the normal approximation needs a few to estimate the
    variance (two seeds of six three-seat matches once "decided" at an LLR of +7.8)."""

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1 (got {self.elo0} and {self.elo1})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, not {value}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, scores: Sequence[float]) -> float:
        """The log-likelihood ratio of independent unit scores in [0, 1]."""
        n = len(scores)
        if n < 2:
            return 0.0
        mean, variance = _moments(scores)
        if variance <= 0:
            # Every unit scored the same (a clean sweep): the sample has no spread, so add one
            # pseudo-unit split half at 0 and half at 1, the least informative prior spread.
            mean, variance = _moments([*scores, 0.0, 1.0], weights=[1.0] * n + [0.5, 0.5])
        s0, s1 = elo_to_score(self.elo0), elo_to_score(self.elo1)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)

    def verdict(self, scores: Sequence[float]) -> Verdict:
        if len(scores) < self.min_units:
            return Verdict.CONTINUE
        llr = self.llr(scores)
        if llr >= self.upper:
            return Verdict.H1
        if llr <= self.lower:
            return Verdict.H0
        return Verdict.CONTINUE


def trinomial(wins: int, draws: int, losses: int) -> list[float]:
    """Per-game scores from a win/draw/loss count."""
    return [1.0] * wins + [0.5] * draws + [0.0] * losses


def confidence(scores: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean score and its normal-approximation interval (``z`` 1.96 for 95%), clamped to [0, 1]."""
    n = len(scores)
    if n == 0:
        return (0.5, 0.0, 1.0)
    mean, variance = _moments(scores)
    if variance <= 0:
        # A clean sweep: the same pseudo-unit as the LLR's gives the interval a width.
        variance = _moments([*scores, 0.0, 1.0], weights=[1.0] * n + [0.5, 0.5])[1]
    half = z * math.sqrt(variance / n)
    return (mean, max(0.0, mean - half), min(1.0, mean + half))


def _moments(scores: Sequence[float], weights: Sequence[float] | None = None) -> tuple[float, float]:
    """Weighted mean and variance."""
    w = weights or [1.0] * len(scores)
    total = sum(w)
    mean = sum(wi * x for wi, x in zip(w, scores, strict=True)) / total
    return mean, sum(wi * (x - mean) ** 2 for wi, x in zip(w, scores, strict=True)) / total


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate (``z`` 1.96 for 95%); fine with 0 or ``n`` successes."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))
