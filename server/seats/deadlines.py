"""The match clock: the one time rule, the same for every kind of bot (docs/protocol.md, "The
clock", says it in words; ``SeatClock`` is the rule, ``BotSession.ask`` only waits as it says).

What a decision is charged:

- a bot the server launched: the CPU time its processes used while the request was open
  (``bot_cpu``), so waiting for a core on a busy machine costs it nothing;
- a remote bot (whose processes the server cannot see): the wall time less ``GRACE_MS``;
- never the server's own lag: the time from queueing the request until the stream takes it to
  send, and the stall of the server's event loop that the reply waited through when it came
  (``sessions.REPLY_STALL_S``, ``loop_lag``). A stall while the bot held the request is the bot's
  time: it did not keep the bot from replying.

Up to ``decision_ms`` is free; beyond, the seat's bank pays; more than the bank holds is late.
After every reply in time the bank grows by ``increment_ms``.

How long the referee waits by the wall clock (``SeatClock.wait_seconds``):

- a remote bot: its budget (``decision_ms`` + bank) plus ``GRACE_MS``;
- a launched bot: the *wall ceiling*, ``max(3 x budget, budget + 1 s) + GRACE_MS``, for a bot that
  blocks or sleeps without computing; stretched by the server's lag and by the time the machine
  kept the bot's threads waiting for a CPU (its run delay), the latter by at most one more wait;
- and for both, the *match wall budget*: a seat's wall time beyond ``decision_ms``, summed over
  its decisions in the match, may reach ``wall_slack_ms`` (its bank plus ``max(10 x decision_ms,
  10 s)``) and no more; once that is spent, a launched bot waits no longer than a remote one.
  So a bot that sleeps (using no CPU) holds a match for at most that long beyond its limits.

What a bot is told (its limit and bank) is never negative.
"""

from __future__ import annotations

from dataclasses import dataclass

GRACE_MS = 50
"""Transport and scheduling allowance per decision, not charged to the bot (see docs/protocol.md).
Loopback round trips measure well under 1 ms at p99; 50 ms also covers a busy 2-core machine."""
BUSY_TIMEOUT = 600.0
"""How long a match waits for remote bots that are connected but busy in other matches (here,
not in ``roster``, so that `serve` shows it as its option's default without loading the seats)."""
KEEP_IDLE_S = 30.0
"""How long an idle managed bot process is kept after its last match before it is stopped (a
`serve` option's default too)."""
KEEP_BOTS_MAX = 64
"""The most idle managed bot processes kept on a machine (a `serve` option's default too). Each
is a running program (an idle Python bot holds ~17 MiB of its own, a JVM far more), and a ladder of
many bots would otherwise keep one or more of every bot that played in the last ``KEEP_IDLE_S``."""


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
MATCH_SLACK_DECISIONS = 10
"""The match wall budget beyond the bank, in decision limits (``MATCH_SLACK_MIN_MS`` at least)."""
MATCH_SLACK_MIN_MS = 10_000


def wall_ceiling_ms(budget_ms: float) -> float:
    """The longest a CPU-charged bot may take by the wall clock before it is called late."""
    return max(WALL_CEILING_FACTOR * budget_ms, budget_ms + WALL_CEILING_MIN_EXTRA_MS) + GRACE_MS


def match_wall_slack_ms(control: TimeControl) -> int:
    """The wall time beyond ``decision_ms`` a seat may use in one match, summed over its decisions."""
    return control.bank_ms + max(MATCH_SLACK_DECISIONS * control.decision_ms, MATCH_SLACK_MIN_MS)


class SeatClock:
    """One seat's bank and match wall budget, charged after each of its decisions."""

    def __init__(self, control: TimeControl, charges_cpu: bool = False) -> None:
        self.control = control
        self.bank_ms = control.bank_ms
        self.charges_cpu = charges_cpu
        """True for a bot whose CPU time the referee can read (see the module docstring)."""
        self.wall_slack_ms = match_wall_slack_ms(control)
        """What is left of the match wall budget."""

    def wall_limit_ms(self) -> float:
        """The longest this decision may take by the wall clock (the server's lag and the bot's
        run delay left out) before it is late."""
        budget = self.control.decision_ms + self.bank_ms
        if not self.charges_cpu:
            return budget + GRACE_MS
        within_match = self.control.decision_ms + max(self.wall_slack_ms, self.bank_ms)
        return max(min(wall_ceiling_ms(budget), within_match + GRACE_MS), budget + GRACE_MS)

    def wait_seconds(self) -> float:
        """How long the referee waits for a reply before calling it late."""
        return self.wall_limit_ms() / 1000

    def charge(self, wall_ms: float, cpu_ms: float | None = None) -> bool:
        """Charge a decision (``wall_ms`` as measured less the server's own lag; ``cpu_ms`` what
        the bot's processes used, when known); return False if it was late."""
        limit = self.wall_limit_ms()
        self._spend_wall(wall_ms)
        if cpu_ms is not None and self.charges_cpu:
            if wall_ms > limit:
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

    def expire(self, wall_ms: float = 0.0) -> None:
        """The seat did not answer within ``wall_ms``: its bank is spent, and the wait too."""
        self._spend_wall(wall_ms)
        self.bank_ms = 0

    def _spend_wall(self, wall_ms: float) -> None:
        self.wall_slack_ms = max(0, self.wall_slack_ms - max(0, int(wall_ms - self.control.decision_ms)))
