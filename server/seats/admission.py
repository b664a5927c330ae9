"""Admission control: start no more matches than the server can referee without falling behind.

The fair clock keeps the server's own lag off every bot's time, but a loop that lags badly still
slows every match and every reply. So before a league starts another match, it asks here: while
the loop's recent lag (99th percentile over the last second, from ``LoopLag``) is above the limit,
new matches wait (matches in play go on); as soon as it falls they start. A league with nothing in
play may always start one, so no league starves.

The limit is a share of the decision limit, ``LAG_SHARE`` (5 %), and never below
``LAG_FLOOR_MS``: a lag is harmful in proportion to the time a bot has to decide. 26 ms of lag is
1.3 % of a 2-second decision and holds nothing back; under a 100 ms limit the floor (20 ms) holds.
``league status`` and ``league run`` say how many matches are held back, for how long, and the lag
and limit that hold them.

Where matches are refereed in worker processes (``process_executor``), their loops count too:
the lag that decides is the worst of the server's and theirs (``elsewhere``).
"""

from __future__ import annotations

from collections.abc import Callable

from kingmaker.server.loop_lag import LoopLag
from kingmaker.server.seats.deadlines import TimeControl

LAG_SHARE = 0.05
LAG_FLOOR_MS = 20.0


def lag_limit_ms(decision_ms: float) -> float:
    """The loop lag above which new matches wait, for this decision limit."""
    return max(LAG_FLOOR_MS, LAG_SHARE * decision_ms)


class Admission:
    def __init__(
        self, lag: LoopLag, decision_ms: float = TimeControl().decision_ms, limit_ms: float | None = None
    ) -> None:
        self.lag = lag
        self.limit_ms = limit_ms if limit_ms is not None else lag_limit_ms(decision_ms)
        self.held_back = 0
        """Matches the leagues wanted to start and are holding back right now."""
        self.elsewhere: Callable[[], float] | None = None
        """The worst recent lag (ms) of the loops refereeing elsewhere, if any."""

    def recent_ms(self) -> float:
        """The recent lag that decides: the server loop's, or a worker's if that is worse."""
        here = self.lag.recent_ms()
        return max(here, self.elsewhere()) if self.elsewhere is not None else here

    def allowed(self, free: int, league_in_play: int) -> int:
        """How many of a league's ``free`` slots may start a match now."""
        if free <= 0 or self.recent_ms() < self.limit_ms:
            return max(0, free)
        return 1 if league_in_play == 0 else 0
