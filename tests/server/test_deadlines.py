"""The match clock: the decision limit, the bank, the increment and the transport grace."""

from __future__ import annotations

import pytest

from kingmaker.server.deadlines import GRACE_MS, SeatClock, TimeControl


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
