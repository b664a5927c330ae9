"""The match clock: a per-decision limit plus an optional time bank, charged only for the bot's
own time.

A decision may take ``decision_ms``. Time beyond that is drawn from the seat's bank; once the
bank is empty the reply is late. After every reply in time the bank grows by ``increment_ms``.
What a bot is charged for one decision:

- never the server's own queueing: the referee measures from queueing the request to receiving
  the reply and subtracts the lag its event loop had in between (``loop_lag``);
- a bot the server launched: the CPU time its processes used meanwhile (``bot_cpu``), so waiting
  for a core on a busy machine costs it nothing; wall time counts only as a ceiling for a bot that
  hangs (``wall_ceiling_ms``: three times its limit and bank, and at least one second more);
- a remote bot (whose processes the server cannot see): the wall time less ``GRACE_MS`` for the
  network.

What a bot is told (its limit and bank) is never negative. docs/protocol.md states the rule.
"""

from __future__ import annotations

from dataclasses import dataclass

GRACE_MS = 50
"""Transport and scheduling allowance per decision, not charged to the bot (see docs/protocol.md).
Loopback round trips measure well under 1 ms at p99; 50 ms also covers a busy 2-core machine."""


@dataclass(frozen=True)
class TimeControl:
    decision_ms: int = 2000
    bank_ms: int = 0
    increment_ms: int = 0
    max_strikes: int = 3

    def __post_init__(self) -> None:
        if self.decision_ms <= 0:
            raise ValueError("decision_ms must be positive")
        if min(self.bank_ms, self.increment_ms) < 0 or self.max_strikes < 1:
            raise ValueError("bank_ms and increment_ms must be >= 0 and max_strikes >= 1")


WALL_CEILING_FACTOR = 3
WALL_CEILING_MIN_EXTRA_MS = 1000


def wall_ceiling_ms(budget_ms: float) -> float:
    """The longest a CPU-charged bot may take by the wall clock before it is called late."""
    return max(WALL_CEILING_FACTOR * budget_ms, budget_ms + WALL_CEILING_MIN_EXTRA_MS) + GRACE_MS


class SeatClock:
    """One seat's bank, charged after each of its decisions."""

    def __init__(self, control: TimeControl, charges_cpu: bool = False) -> None:
        self.control = control
        self.bank_ms = control.bank_ms
        self.charges_cpu = charges_cpu
        """True for a bot whose CPU time the referee can read (see the module docstring)."""

    def wait_seconds(self) -> float:
        """How long the referee waits for a reply before calling it late."""
        budget = self.control.decision_ms + self.bank_ms
        return (wall_ceiling_ms(budget) if self.charges_cpu else budget + GRACE_MS) / 1000

    def charge(self, wall_ms: float, cpu_ms: float | None = None) -> bool:
        """Charge a decision (``wall_ms`` as measured less the server's own lag; ``cpu_ms`` what
        the bot's processes used, when known); return False if it was late."""
        if cpu_ms is not None and self.charges_cpu:
            if wall_ms > wall_ceiling_ms(self.control.decision_ms + self.bank_ms):
                self.bank_ms = 0
                return False
            own_time = cpu_ms
        else:
            own_time = max(0.0, wall_ms - GRACE_MS)
        overrun = own_time - self.control.decision_ms
        if overrun > self.bank_ms:
            self.bank_ms = 0
            return False
        if overrun > 0:
            self.bank_ms -= int(overrun + 0.999)
        self.bank_ms += self.control.increment_ms
        return True

    def expire(self) -> None:
        """The seat did not answer at all: its bank is spent."""
        self.bank_ms = 0
