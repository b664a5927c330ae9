"""The SPRT behind ``kingmaker duel``: bounds, LLR values worked out by hand, and bad settings."""

from __future__ import annotations

import math

import pytest

from kingmaker.sdk.sprt import Sprt, Verdict, confidence, elo_to_score, score_to_elo, trinomial


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


def test_llr_of_a_trinomial_sample_by_hand() -> None:
    # 60 wins, 40 losses: mean 0.6, variance 0.24; s0 = 0.5, s1 = 1/(1+10^(-10/400)).
    s1 = 1 / (1 + 10 ** (-10 / 400))
    expected = 100 * (s1 - 0.5) * (1.2 - 0.5 - s1) / (2 * 0.24)
    llr = Sprt(0, 10).llr(trinomial(60, 0, 40))
    assert llr == pytest.approx(expected)
    assert llr == pytest.approx(0.5563, abs=1e-3)


def test_draws_lower_the_variance_and_raise_the_llr() -> None:
    # 30 wins, 40 draws, 30 losses is an even score: LLR negative for elo1 > 0.
    even = Sprt(0, 10).llr(trinomial(30, 40, 30))
    assert even < 0
    # Same mean 0.6 as above with draws: less spread, stronger evidence.
    assert Sprt(0, 10).llr(trinomial(40, 40, 20)) > Sprt(0, 10).llr(trinomial(60, 0, 40))


def test_verdicts() -> None:
    test = Sprt(0, 50)
    assert test.verdict(trinomial(90, 0, 10)) is Verdict.H1
    assert test.verdict(trinomial(10, 0, 90)) is Verdict.H0
    assert test.verdict(trinomial(3, 0, 2)) is Verdict.CONTINUE


def test_a_clean_sweep_still_decides() -> None:
    test = Sprt(0, 50)
    assert test.llr([1.0] * 10) > test.upper
    assert test.llr([1.0]) == 0.0


@pytest.mark.parametrize(
    ("elo0", "elo1", "alpha", "beta", "message"),
    [
        (10, 5, 0.05, 0.05, "elo0 must be below elo1"),
        (0, 0, 0.05, 0.05, "elo0 must be below elo1"),
        (0, 5, 0.0, 0.05, "alpha"),
        (0, 5, 0.05, 0.7, "beta"),
    ],
)
def test_bad_settings_are_refused(elo0: float, elo1: float, alpha: float, beta: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Sprt(elo0, elo1, alpha, beta)


def test_confidence_interval() -> None:
    mean, low, high = confidence(trinomial(60, 0, 40))
    assert mean == pytest.approx(0.6)
    assert high - mean == pytest.approx(1.96 * math.sqrt(0.24 / 100))
    assert low < 0.6 < high


def test_a_clean_sweep_has_an_interval_of_some_width() -> None:
    mean, low, high = confidence([1.0] * 7)
    assert mean == 1.0
    assert 0.5 < low < 0.9
    assert high == 1.0


def test_no_verdict_from_too_few_units() -> None:
    """Two units with a tiny spread give a huge LLR; the test waits for ``min_units``."""
    test = Sprt(0, 50)
    assert test.llr([1.0, 0.95]) > test.upper
    assert test.verdict([1.0, 0.95]) is Verdict.CONTINUE
    assert test.verdict([1.0, 0.95, 1.0, 0.95, 1.0]) is Verdict.H1
