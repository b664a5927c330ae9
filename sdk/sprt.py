"""The sequential probability ratio test that ``kingmaker duel`` stops on, computed as fastchess does.

Hypotheses are in logistic Elo: H0 "A is ``elo0`` stronger than B", H1 "A is ``elo1`` stronger".
An Elo difference maps to an expected score ``1 / (1 + 10 ** (-elo / 400))``, so H0 and H1 say
that the expected score of a unit is ``s0`` or ``s1``. A unit is whatever is independent: one
game (trinomial: 1, 1/2, 0), a pair of games with the colours swapped (pentanomial: 0, 1/4, ...,
1), or, in ``duel``, a seed played in every seat order: the mean of A's pairwise scores over
that seed's matches, one of finitely many values between 0 and 1 (multiples of 1/24 for three
seats).

The log-likelihood ratio is the exact generalised one (GSPRT) over the units' empirical
distribution, as fastchess's ``SPRT::getLLR_logistic`` and fishtest's ``LLRcalc.LLR_logistic``
compute it: the units are a multinomial over the values seen (``a_i``, seen with frequency
``phat_i``); under each hypothesis its maximum-likelihood distribution with mean ``s`` is
``p_i = phat_i / (1 + theta (a_i - s))``, with ``theta`` the root of
``sum_i phat_i (a_i - s) / (1 + theta (a_i - s)) = 0`` (Michel Van den Bergh, proposition 1.1 of
https://www.cantate.be/Fishtest/support_MLE_multinomial.pdf, which fishtest cites; fastchess
cites it from his "Comments on Normalized Elo"); and LLR = ``n sum_i phat_i log(p1_i / p0_i)``.
Nothing in it needs the values to be the trinomial's or the pentanomial's, so seed scores of any
seat count go in as they are. Values of the unit's ``support`` (the trinomial's three or the
pentanomial's five) that have not been seen count as 1/1000 of a unit each, as fastchess and
fishtest ``regularize``: the MLE then exists before units have fallen on both sides of ``s0``
and ``s1``. The test stops for H1 once LLR >= log((1 - beta) / alpha) and for H0 once
LLR <= log(beta / (1 - alpha)) (Wald's bounds).

``tests/sdk/test_sprt.py`` checks the LLR and the Elo interval against fastchess's published
values; ``bench/sprt_error_rates.py`` measures the error rates in simulated duels (figures in
``docs/writing-a-bot.md``, section 5).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np
from numpy.typing import ArrayLike, NDArray

TRINOMIAL = (0.0, 0.5, 1.0)
"""The scores of one game: loss, draw, win."""
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The mean scores of a pair of games; also the support ``duel`` gives seeds of any seat count."""
UNSEEN = 1e-3
"""How many units an unseen value of the support counts as (fastchess's and fishtest's ``regularize``)."""

_DIGITS = 9
"""Unit scores are keyed rounded to this many decimals: a seed's mean of sixths summed in floating
point is the same value however its matches were added up."""


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
    return 400 * math.log10(score / (1 - score))


class Tally:
    """The units of a test counted by score, added one at a time; what ``Sprt`` decides on.

    ``support`` is the values a unit may take that count as ``UNSEEN`` while not seen; other
    values between 0 and 1 (a three-seat seed's 24ths) are counted as they come."""

    def __init__(self, support: Sequence[float] = PENTANOMIAL) -> None:
        values = {round(value, _DIGITS) for value in support}
        if not (0.0 in values and 1.0 in values and all(0 <= value <= 1 for value in values)):
            raise ValueError(f"a support is values in [0, 1] with both 0 and 1, not {list(support)}")
        self.support = tuple(sorted(values))
        self._counts: dict[float, int] = {}

    @classmethod
    def of(cls, scores: Iterable[float], support: Sequence[float] = PENTANOMIAL) -> Tally:
        tally = cls(support)
        for score in scores:
            tally.add(score)
        return tally

    def add(self, score: float, count: int = 1) -> None:
        """Count ``count`` more units that scored ``score``; ``ValueError`` for a score outside [0, 1]."""
        if not 0 <= score <= 1:  # also refuses NaN
            raise ValueError(f"a unit scores between 0 and 1, not {score}")
        if count < 0:
            raise ValueError(f"a count of units is not negative, not {count}")
        key = round(score, _DIGITS)
        self._counts[key] = self._counts.get(key, 0) + count

    @property
    def counts(self) -> Mapping[float, int]:
        """Units by score, lowest score first."""
        return {value: self._counts[value] for value in sorted(self._counts) if self._counts[value]}

    @property
    def n(self) -> int:
        return sum(self._counts.values())

    def moments(self) -> tuple[float, float]:
        """The units' mean score and (population) variance; (0.5, 0.0) before any unit."""
        n = self.n
        if n == 0:
            return (0.5, 0.0)
        mean = sum(value * count for value, count in self._counts.items()) / n
        variance = sum(count * (value - mean) ** 2 for value, count in self._counts.items()) / n
        return (mean, variance)

    def weights(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Every value seen or in the support, and its count with unseen support values at ``UNSEEN``."""
        values = sorted(set(self.support) | set(self.counts))
        counts = np.array([self._counts.get(value, 0) for value in values], dtype=np.float64)
        return np.array(values), regularised(values, counts, self.support)


def trinomial(wins: int, draws: int, losses: int) -> Tally:
    """Games as units, from a win/draw/loss count."""
    tally = Tally(TRINOMIAL)
    for score, count in ((1.0, wins), (0.5, draws), (0.0, losses)):
        tally.add(score, count)
    return tally


def pentanomial(ll: int, ld: int, even: int, wd: int, ww: int) -> Tally:
    """Game pairs as units, from the counts of pairs scoring 0, 1/4, 1/2 (WL or DD), 3/4 and 1."""
    tally = Tally(PENTANOMIAL)
    for score, count in zip(PENTANOMIAL, (ll, ld, even, wd, ww), strict=True):
        tally.add(score, count)
    return tally


def regularised(values: ArrayLike, counts: ArrayLike, support: Sequence[float]) -> NDArray[np.float64]:
    """``counts`` (by ``values``, last axis) with each unseen value of ``support`` counted as ``UNSEEN``."""
    counts = np.asarray(counts, dtype=np.float64)
    in_support = np.isin(np.asarray(values, dtype=np.float64), np.asarray(support, dtype=np.float64))
    return np.where((counts == 0) & in_support, UNSEEN, counts)


def log_likelihood_ratio(values: ArrayLike, weights: ArrayLike, s0: float, s1: float) -> NDArray[np.float64]:
    """The GSPRT's LLR of units counted by ``weights`` (last axis: by ``values``), for mean s1 against s0.

    Vectorised over the leading axes of ``weights``, so a simulation computes many tests at once
    with the code a duel uses. The weights must put some mass on both sides of ``s0`` and of ``s1``
    (``regularised`` with a support of 0 and 1 does)."""
    values = np.asarray(values, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    phat = weights / weights.sum(axis=-1, keepdims=True)
    # log p1_i - log p0_i = log(1 + theta0 (a_i - s0)) - log(1 + theta1 (a_i - s1)): phat_i cancels.
    with np.errstate(divide="ignore", invalid="ignore"):  # at values without weight, masked below
        jumps = np.log1p(_theta(values - s0, phat)[..., None] * (values - s0))
        jumps -= np.log1p(_theta(values - s1, phat)[..., None] * (values - s1))
    result: NDArray[np.float64] = np.where(weights > 0, weights * jumps, 0.0).sum(axis=-1)
    return result


def _theta(deviations: NDArray[np.float64], phat: NDArray[np.float64]) -> NDArray[np.float64]:
    """The root of sum_i phat_i d_i / (1 + theta d_i) (Van den Bergh's equation 1.3), per leading index.

    The sum falls strictly from +inf to -inf between the poles of the largest and the smallest
    deviation that carry weight, so the root is unique there: Newton's method, with a bisection
    step whenever Newton would leave the bracket that the signs seen so far have narrowed."""
    weighted = phat > 0
    highest = np.where(weighted, deviations, -np.inf).max(axis=-1)
    lowest = np.where(weighted, deviations, np.inf).min(axis=-1)
    if np.any(highest <= 0) or np.any(lowest >= 0):
        raise ValueError("no distribution of these values has that mean: weigh values on both sides of it")
    low, high = -1 / highest, -1 / lowest
    theta: NDArray[np.float64] = np.zeros_like(low)
    for _ in range(200):
        # Values without weight may sit beyond a pole; they add nothing to the sums.
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(weighted, deviations / (1 + theta[..., None] * deviations), 0.0)
        f = (phat * ratio).sum(axis=-1)
        slope = -(phat * ratio**2).sum(axis=-1)
        low = np.where(f > 0, theta, low)
        high = np.where(f < 0, theta, high)
        newton = theta - f / slope
        step = np.where((newton > low) & (newton < high), newton, (low + high) / 2)
        done = np.abs(step - theta) <= 1e-14 * (1 + np.abs(theta))
        theta = step
        if np.all(done):
            break
    return theta


def at_least(elo: float, b: str) -> str:
    """H1 "A is ``elo1`` or more stronger than B" in words ("at least as strong as B" at 0)."""
    if elo > 0:
        return f"at least {elo:g} Elo stronger than {b}"
    if elo < 0:
        return f"at most {-elo:g} Elo weaker than {b}"
    return f"at least as strong as {b}"


def at_most(elo: float, b: str) -> str:
    """H0 "A is ``elo0`` or less stronger than B" in words ("at least 50 Elo weaker than B" at -50)."""
    if elo > 0:
        return f"at most {elo:g} Elo stronger than {b}"
    if elo < 0:
        return f"at least {-elo:g} Elo weaker than {b}"
    return f"no stronger than {b}"


def verdict_words(verdict: Verdict, a: str, b: str, elo0: float, elo1: float) -> str:
    """The verdict as ``duel`` says it, the hypothesis accepted stated as the docs state it:
    "H1 accepted: A is at least 50 Elo stronger than B", "H0 accepted: A is no stronger than B"."""
    if verdict is Verdict.H1:
        return f"H1 accepted: {a} is {at_least(elo1, b)}"
    if verdict is Verdict.H0:
        return f"H0 accepted: {a} is {at_most(elo0, b)}"
    return "undecided"


@dataclass(frozen=True)
class Sprt:
    """A configured test: ``elo0 < elo1``, ``0 < alpha, beta < 0.5``; ``ValueError`` otherwise."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    min_units: int = 1
    """No verdict from fewer units. The exact LLR needs no minimum: n units keep it between
    -n log((1 - s0) / (1 - s1)) and n log(s1 / s0), so H1 takes at least 23 units at Elo 0/50 and
    H0 20, and ``bench/sprt_error_rates.py`` measures the promised error rates with none."""

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1 (got {self.elo0} and {self.elo1})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, not {value}")
        if self.min_units < 1:
            raise ValueError(f"min_units must be at least 1, not {self.min_units}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    @property
    def scores(self) -> tuple[float, float]:
        """The expected unit scores under H0 and H1."""
        return elo_to_score(self.elo0), elo_to_score(self.elo1)

    def llr(self, tally: Tally) -> float:
        """The log-likelihood ratio of the units so far (0 before any)."""
        if tally.n == 0:
            return 0.0
        values, weights = tally.weights()
        return float(log_likelihood_ratio(values, weights, *self.scores))

    def verdict(self, tally: Tally) -> Verdict:
        if tally.n < self.min_units:
            return Verdict.CONTINUE
        llr = self.llr(tally)
        if llr >= self.upper:
            return Verdict.H1
        if llr <= self.lower:
            return Verdict.H0
        return Verdict.CONTINUE


def confidence(tally: Tally, z: float = 1.96) -> tuple[float, float, float]:
    """Mean unit score and its normal-approximation interval (``z`` 1.96 for 95%), clamped to [0, 1]."""
    if tally.n == 0:
        return (0.5, 0.0, 1.0)
    mean, low, high = _interval(tally, z)
    return (mean, max(0.0, low), min(1.0, high))


def elo_estimate(tally: Tally, z: float = 1.96) -> tuple[float, float]:
    """The Elo difference and the half-width of its interval, ``diff ± half``, as fastchess prints them.

    The half-width is half the Elo distance between the ends of the score interval; it is
    infinite while that interval reaches 0 or 1 (no Elo there)."""
    mean, low, high = _interval(tally, z)
    if tally.n == 0 or low <= 0 or high >= 1:
        return (score_to_elo(mean), math.inf)
    return (score_to_elo(mean), (score_to_elo(high) - score_to_elo(low)) / 2)


def _interval(tally: Tally, z: float) -> tuple[float, float, float]:
    """The unclamped normal interval of the mean unit score."""
    n = tally.n
    mean, variance = tally.moments()
    if variance <= 0 < n:
        # Every unit scored the same (a clean sweep): the sample has no spread, so add one
        # pseudo-unit split half at 0 and half at 1, the least informative prior spread.
        pooled = (n * mean + 0.5) / (n + 1)
        variance = (n * (mean - pooled) ** 2 + 0.5 * pooled**2 + 0.5 * (1 - pooled) ** 2) / (n + 1)
    half = z * math.sqrt(variance / max(n, 1))
    return (mean, mean - half, mean + half)


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate (``z`` 1.96 for 95%); fine with 0 or ``n`` successes."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))
