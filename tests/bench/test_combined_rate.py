"""bench/rates.py: the referee bench's one rate over a run cannot overstate what the server did,
where the old sum of a rate per league could (issue 35)."""

from __future__ import annotations

import pytest
from bench_modules import load_bench
from hypothesis import given
from hypothesis import strategies as st

combined_rate = load_bench("rates").combined_rate


def summed_per_league(leagues: list[list[tuple[float, int]]]) -> float:
    """What the bench printed before: each league's rate over its own span, added up."""
    total = 0.0
    for finishes in leagues:
        (first, _), *rest = sorted(finishes)
        total += sum(decisions for _, decisions in rest) / (rest[-1][0] - first)
    return total


def test_two_leagues_out_of_step_are_not_counted_twice() -> None:
    # A server that decides 100 times a second, playing two leagues of 100-decision matches out
    # of step: league a's matches end in the first 10 s, b's in the next 11 s.
    league_a = [(float(second), 100) for second in range(0, 11)]
    league_b = [(float(second), 100) for second in range(11, 22)]
    old = summed_per_league([league_a, league_b])
    new = combined_rate(league_a + league_b)
    assert old == pytest.approx(200.0)  # each league alone looks like 100 decisions/s
    assert new == pytest.approx(100.0)  # the server's rate: 21 matches after the first in 21 s
    assert old / new == pytest.approx(2.0)


def test_eight_at_once_out_of_step_reads_within_the_edge_of_the_span() -> None:
    # Eight lanes share a server of 800 decisions/s, each finishing a 100-decision match a second:
    # league a fills them for 10 s, then league b for 10 s. The matches in play when the clock
    # starts made part of their decisions before it (at most 7 of 160 matches here): that edge is
    # all the combined rate can read over the server's; the old sum reads twice it.
    league_a = [(float(second), 100) for second in range(1, 11) for _ in range(8)]
    league_b = [(float(second), 100) for second in range(11, 21) for _ in range(8)]
    old = summed_per_league([league_a, league_b])
    new = combined_rate(league_a + league_b)
    assert old >= 2 * 800
    assert 800 <= new <= 1.1 * 800


def test_the_order_the_finishes_come_in_does_not_matter() -> None:
    finishes = [(3.0, 10), (1.0, 50), (2.0, 20), (5.0, 30)]
    assert combined_rate(finishes) == pytest.approx((20 + 10 + 30) / 4.0)


@given(
    st.lists(st.integers(min_value=1, max_value=400), min_size=2, max_size=60),
    st.integers(min_value=1, max_value=8),
)
def test_a_server_one_match_at_a_time_is_read_at_its_own_rate(decisions: list[int], rate: int) -> None:
    # A server that makes `rate` decisions a second, playing matches one after another whichever
    # league they belong to: each finishes when its decisions are done. The combined rate reads
    # exactly `rate`, however the matches were grouped into leagues.
    clock = 0.0
    finishes = []
    for count in decisions:
        clock += count / rate
        finishes.append((clock, count))
    assert combined_rate(finishes) == pytest.approx(rate)


def test_too_few_finishes_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="at least two"):
        combined_rate([(1.0, 10)])
    with pytest.raises(ValueError, match="same instant"):
        combined_rate([(1.0, 10), (1.0, 10)])
