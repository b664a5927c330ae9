"""The SPRT behind ``kingmaker duel``: fastchess's and fishtest's numbers, the issue's cases, bad input.

Published values come from fastchess (Disservin/fastchess, commit 74deac23): the logistic cases of
``app/tests/sprt_test.cpp`` and the Elo cases of ``app/tests/elo_test.cpp``. There ``Stats(w, l, d)``
is wins, losses, draws and ``Stats(ll, ld, wl, dd, wd, ww)`` the pentanomial; the values are
printed to two decimals. Values marked "fishtest" were computed with fishtest's own code,
``server/fishtest/stats/LLRcalc.py`` (official-stockfish/fishtest, commit 93fe81eb; SciPy's
brentq for the secular equation), on the same regularised counts.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kingmaker.sdk.sprt import (
    PENTANOMIAL,
    TRINOMIAL,
    UNSEEN,
    Sprt,
    Tally,
    Verdict,
    confidence,
    elo_estimate,
    elo_to_score,
    log_likelihood_ratio,
    pentanomial,
    regularised,
    score_to_elo,
    trinomial,
)


def test_bounds_are_walds() -> None:
    # Wald's bounds for alpha = beta = 0.05: log(0.05 / 0.95) and its negative.
    test = Sprt(0, 10, 0.05, 0.05)
    assert test.lower == pytest.approx(-2.944438979)
    assert test.upper == pytest.approx(2.944438979)
    assert Sprt(0, 5, 0.05, 0.1).lower == pytest.approx(math.log(0.1 / 0.95))


def test_elo_score_round_trip() -> None:
    assert elo_to_score(0) == 0.5
    # 400 Elo is 10:1 odds.
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(elo_to_score(123.0)) == pytest.approx(123.0)
    assert math.copysign(1, score_to_elo(0.5)) == 1  # an even score prints as +0, not -0


@pytest.mark.parametrize(
    ("case", "tally", "elo0", "elo1", "published"),
    [
        ("logistic trinomial 1", trinomial(21404, 40708, 21184), 0.5, 2.5, -1.57),
        ("logistic trinomial 2", trinomial(57433, 106593, 57030), 0, 2, -2.59),
        ("logistic pentanomial 1", pentanomial(223, 9863, 20279 + 1000, 10037, 246), 0.5, 2.5, -3.07),
        ("logistic pentanomial 2", pentanomial(871, 26175, 55003 + 980, 26678, 821), 0, 2, -4.98),
    ],
)
def test_llr_agrees_with_fastchess(
    case: str, tally: Tally, elo0: float, elo1: float, published: float
) -> None:
    assert Sprt(elo0, elo1).llr(tally) == pytest.approx(published, abs=0.005), case


@pytest.mark.parametrize(
    ("case", "tally", "diff", "error"),
    [
        ("EloWDL 2", trinomial(136, 111, 96), 40.70, 30.43),
        ("EloPentanomial 1", pentanomial(34, 54, 31 + 32, 64, 75), 55.58, 27.65),
        ("EloPentanomial 2", pentanomial(332, 433, 457 + 41, 333, 334), -8.64, 10.33),
        ("EloPentanomial 3", pentanomial(7895, 8757, 5485 + 200, 568, 9999), -21.04, 2.95),
    ],
)
def test_elo_and_half_width_agree_with_fastchess(case: str, tally: Tally, diff: float, error: float) -> None:
    assert elo_estimate(tally) == pytest.approx((diff, error), abs=0.005), case


def test_five_good_seeds_do_not_accept_h1() -> None:
    # Issue 26: the normal approximation gave +7.49 and accepted H1; fastchess gives +0.67.
    test = Sprt(0, 50)
    seeds = Tally.of([0.75, 0.75, 0.75, 1.0, 1.0])
    assert test.llr(seeds) == pytest.approx(0.6679847163622226, rel=1e-9)  # fishtest
    assert test.verdict(seeds) is Verdict.CONTINUE


def test_a_drawish_plus_score_does_not_accept_h0() -> None:
    # Issue 26: at W/D/L 30/1000/2 and Elo -5/25 the normal approximation accepted H0; fastchess H1.
    test = Sprt(-5, 25)
    games = trinomial(30, 1000, 2)
    assert test.llr(games) == pytest.approx(9.362990601109509, rel=1e-9)  # fishtest
    assert test.verdict(games) is Verdict.H1


@pytest.mark.parametrize(
    ("seeds", "elo0", "elo1", "fishtest"),
    [
        ([13, 17, 11, 24, 19, 12, 15, 9, 16, 14], 0, 50, 1.334133935622858),
        ([0, 5, 7, 7, 2, 6, 10, 3], -20, 30, -1.1678639579939445),
    ],
)
def test_three_seat_seed_scores_agree_with_fishtests_mle(
    seeds: list[int], elo0: float, elo1: float, fishtest: float
) -> None:
    """Seeds of three seats score in 24ths; fishtest's LLR over the same values agrees."""
    assert Sprt(elo0, elo1).llr(Tally.of(seed / 24 for seed in seeds)) == pytest.approx(fishtest, rel=1e-9)


def test_a_clean_sweep_decides_when_fishtest_does() -> None:
    """Each unit moves the exact LLR a bounded step: 22 swept pairs give 2.939 (fishtest), 23 give 3.073."""
    test = Sprt(0, 50)
    sweep = Tally()
    verdicts = []
    for _ in range(23):
        sweep.add(1.0)
        verdicts.append(test.verdict(sweep))
    assert verdicts == [Verdict.CONTINUE] * 22 + [Verdict.H1]
    assert test.llr(pentanomial(0, 0, 0, 0, 22)) == pytest.approx(2.939267096317105, rel=1e-9)
    assert test.llr(sweep) == pytest.approx(3.072858945435015, rel=1e-9)
    lost = Tally.of([0.0] * 40)
    assert test.verdict(lost) is Verdict.H0


def test_one_unit_at_a_time_is_the_same_as_all_at_once() -> None:
    scores = [0.5, 0.75, 0.25, 1.0, 0.5, 0.5, 0.75, 1.0, 0.0, 0.75] * 3
    step = Tally()
    test = Sprt(0, 50)
    for score in scores:
        step.add(score)
    assert test.llr(step) == test.llr(Tally.of(scores))
    assert test.llr(step) == test.llr(pentanomial(3, 3, 9, 9, 6))


def test_the_same_seed_score_summed_differently_is_one_value() -> None:
    # A seed of six matches is a mean of sixths in floating point: 0.1 + 0.2 is not 0.3.
    tally = Tally.of([(0.1 + 0.2), 0.3, sum([1 / 6] * 6) / 6 * 5, 5 / 6])
    assert list(tally.counts.values()) == [2, 2]


def test_unseen_support_values_count_a_thousandth() -> None:
    values, weights = Tally.of([0.75, 1.0, 0.3]).weights()
    assert values.tolist() == [0.0, 0.25, 0.3, 0.5, 0.75, 1.0]
    assert weights.tolist() == [UNSEEN, UNSEEN, 1.0, UNSEEN, 1.0, 1.0]
    _, trinomial_weights = trinomial(4, 0, 1).weights()
    assert trinomial_weights.tolist() == [1.0, UNSEEN, 4.0]


def test_the_llr_is_vectorised_over_tests() -> None:
    values = np.array(PENTANOMIAL)
    counts = np.array([[0, 1, 4, 2, 0], [3, 0, 0, 0, 9], [5, 5, 5, 5, 5]])
    weights = regularised(values, counts, PENTANOMIAL)
    one_by_one = [log_likelihood_ratio(values, row, 0.5, 0.55) for row in weights]
    assert log_likelihood_ratio(values, weights, 0.5, 0.55) == pytest.approx(one_by_one, rel=1e-12)


def test_values_without_weight_change_nothing() -> None:
    """Values no unit took (a three-seat lattice beyond the support) add no term, even beyond a pole."""
    sparse = log_likelihood_ratio([0.0, 0.2, 0.5, 0.9, 1.0], [1e-3, 0, 4, 0, 3], 0.4, 0.6)
    dense = log_likelihood_ratio([0.0, 0.5, 1.0], [1e-3, 4, 3], 0.4, 0.6)
    assert float(sparse) == pytest.approx(float(dense), rel=1e-12)


def test_no_mle_when_every_unit_is_on_one_side() -> None:
    with pytest.raises(ValueError, match="both sides"):
        log_likelihood_ratio([0.5, 0.75, 1.0], [2, 3, 1], 0.4, 0.6)


def test_no_units_no_evidence() -> None:
    test = Sprt(0, 50)
    assert test.llr(Tally()) == 0.0
    assert test.verdict(Tally()) is Verdict.CONTINUE


def test_no_verdict_from_fewer_units_than_the_minimum() -> None:
    test = Sprt(0, 400, min_units=3)
    lost = Tally.of([0.0, 0.0])
    assert test.llr(lost) < test.lower
    assert test.verdict(lost) is Verdict.CONTINUE
    lost.add(0.0)
    assert test.verdict(lost) is Verdict.H0


@pytest.mark.parametrize(
    ("elo0", "elo1", "alpha", "beta", "min_units", "message"),
    [
        (10, 5, 0.05, 0.05, 1, "elo0 must be below elo1"),
        (0, 0, 0.05, 0.05, 1, "elo0 must be below elo1"),
        (0, 5, 0.0, 0.05, 1, "alpha"),
        (0, 5, 0.05, 0.7, 1, "beta"),
        (0, 5, 0.05, 0.05, 0, "min_units must be at least 1"),
    ],
)
def test_bad_settings_are_refused(
    elo0: float, elo1: float, alpha: float, beta: float, min_units: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Sprt(elo0, elo1, alpha, beta, min_units)


@pytest.mark.parametrize("score", [-0.25, 1.5, math.nan])
def test_a_score_outside_zero_to_one_is_refused_and_nothing_is_counted(score: float) -> None:
    tally = Tally.of([0.5, 1.0])
    with pytest.raises(ValueError, match="between 0 and 1"):
        tally.add(score)
    assert tally.counts == {0.5: 1, 1.0: 1}


def test_bad_counts_and_supports_are_refused() -> None:
    with pytest.raises(ValueError, match="not negative"):
        Tally().add(0.5, -1)
    with pytest.raises(ValueError, match="both 0 and 1"):
        Tally((0.25, 0.5, 1.0))
    with pytest.raises(ValueError, match="both 0 and 1"):
        Tally((0.0, 1.0, 2.0))
    assert Tally(TRINOMIAL).support == TRINOMIAL


def test_confidence_interval() -> None:
    mean, low, high = confidence(trinomial(60, 0, 40))
    assert mean == pytest.approx(0.6)
    assert high - mean == pytest.approx(1.96 * math.sqrt(0.24 / 100))
    assert low < 0.6 < high


def test_a_clean_sweep_has_an_interval_of_some_width_and_no_finite_half_width() -> None:
    sweep = Tally.of([1.0] * 7)
    mean, low, high = confidence(sweep)
    assert mean == 1.0
    assert 0.5 < low < 0.9
    assert high == 1.0
    assert elo_estimate(sweep) == (score_to_elo(1.0), math.inf)
    assert confidence(Tally()) == (0.5, 0.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(
    counts=st.lists(st.integers(0, 50), min_size=25, max_size=25).filter(any),
    elo0=st.floats(-300, 300),
    gap=st.floats(1, 400),
)
def test_each_unit_moves_the_llr_a_bounded_step(counts: list[int], elo0: float, gap: float) -> None:
    """n units give an LLR within n log(s1/s0) and -n log((1 - s0)/(1 - s1)) (n with the pseudo-units):
    the mean-s1 MLE mixed with a point at 0 is a mean-s0 distribution, and so on."""
    test = Sprt(elo0, elo0 + gap)
    s0, s1 = test.scores
    tally = Tally()
    for value, count in enumerate(counts):
        tally.add(value / 24, count)
    total = float(tally.weights()[1].sum())
    assert (
        -total * math.log((1 - s0) / (1 - s1)) - 1e-9 <= test.llr(tally) <= total * math.log(s1 / s0) + 1e-9
    )
