"""The match clock: the decision limit, the bank, the increment and the transport grace."""

from __future__ import annotations

import pytest

from kingmaker.server.seats.deadlines import (
    GRACE_MS,
    SeatClock,
    TimeControl,
    match_wall_slack_ms,
    wall_ceiling_ms,
)


def test_a_reply_within_the_limit_plus_grace_is_in_time_and_costs_no_bank() -> None:
    clock = SeatClock(TimeControl(decision_ms=100, bank_ms=50))
    assert clock.charge(100 + GRACE_MS)
    assert clock.bank_ms == 50


def test_an_overrun_is_drawn_from_the_bank_then_the_reply_is_late() -> None:
    clock = SeatClock(TimeControl(decision_ms=100, bank_ms=50))
    assert clock.charge(130 + GRACE_MS)
    assert clock.bank_ms == 20
    assert not clock.charge(121 + GRACE_MS)
    assert clock.bank_ms == 0, "the bank a bot is told about never goes negative"


def test_the_increment_is_added_after_each_reply_in_time() -> None:
    clock = SeatClock(TimeControl(decision_ms=100, bank_ms=0, increment_ms=10))
    assert clock.charge(10)
    assert clock.charge(10)
    assert clock.bank_ms == 20


def test_the_referee_waits_for_limit_bank_and_grace() -> None:
    clock = SeatClock(TimeControl(decision_ms=100, bank_ms=400))
    assert clock.wait_seconds() == pytest.approx((100 + 400 + GRACE_MS) / 1000)
    clock.expire()
    assert clock.bank_ms == 0


@pytest.mark.parametrize("bad", [{"decision_ms": 0}, {"bank_ms": -1}, {"max_strikes": 0}])
def test_nonsense_time_controls_are_refused(bad: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be"):
        TimeControl(**bad)


def test_a_launched_bot_is_charged_its_cpu_time_not_its_wait_for_a_core() -> None:
    clock = SeatClock(TimeControl(decision_ms=50), charges_cpu=True)
    # 400 ms by the wall clock, but its processes used 2 ms of CPU: it waited for a core.
    assert clock.charge(400, cpu_ms=2)
    # Burning CPU past the limit is late, whatever the wall clock says.
    assert not clock.charge(60, cpu_ms=55)


def test_a_bot_that_hangs_without_cpu_is_late_at_the_wall_ceiling() -> None:
    clock = SeatClock(TimeControl(decision_ms=50), charges_cpu=True)
    ceiling = wall_ceiling_ms(50)
    assert ceiling == 50 + 1000 + GRACE_MS
    assert clock.wait_seconds() == pytest.approx(ceiling / 1000)
    assert clock.charge(ceiling - 1, cpu_ms=0)
    assert not clock.charge(ceiling + 1, cpu_ms=0)


def test_a_remote_bot_is_charged_wall_time_less_the_grace() -> None:
    clock = SeatClock(TimeControl(decision_ms=50), charges_cpu=False)
    assert clock.charge(50 + GRACE_MS, cpu_ms=None)
    assert not clock.charge(51 + GRACE_MS, cpu_ms=None)


def test_a_launched_bot_that_sleeps_spends_its_match_wall_budget_then_is_late_like_a_remote_one() -> None:
    # Before, a bot that slept (no CPU) just under the ceiling on every decision was never late:
    # one match of it took minutes. Now its wall time over the limit comes out of one budget a match.
    control = TimeControl(decision_ms=200)
    clock = SeatClock(control, charges_cpu=True)
    slack = match_wall_slack_ms(control)
    sleep_ms = wall_ceiling_ms(200) - 10  # in time by the ceiling, every time
    in_time = 0
    while clock.charge(sleep_ms, cpu_ms=0):
        in_time += 1
        assert in_time < 100, "never late"
    # Each in-time sleep spent (sleep - limit) of the budget; the one that overran it is late.
    assert in_time == int(slack // (sleep_ms - 200))
    assert clock.wait_seconds() == pytest.approx((200 + GRACE_MS) / 1000), "now waited for as a remote bot"
    assert clock.charge(200 + GRACE_MS, cpu_ms=0), "and still in time within its limit"


def test_no_reply_spends_the_match_wall_budget_too() -> None:
    control = TimeControl(decision_ms=200)
    clock = SeatClock(control, charges_cpu=True)
    for _ in range(100):
        clock.expire(clock.wait_seconds() * 1000)
    assert clock.wait_seconds() == pytest.approx((200 + GRACE_MS) / 1000)
