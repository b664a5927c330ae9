"""How late the server's own event loop runs: the time the clock must not charge to any bot.

A reply that reaches the server while its event loop is busy (refereeing other matches, starting
a process) waits until the loop gets to it; that wait is the server's, not the bot's. A ticker
wakes every ``TICK_S`` and adds how late it woke to a running total, so the lag inside any window
is the difference of two readings. A reading also counts the lateness of the tick that is due
but has not run yet (the loop may reach a reply before it reaches the ticker).

The ticker also remembers when its recent ticks ran, so that the lag of only the last stretch
before a moment can be read (``since``): a reply waits for the loop only through the stall the loop
was in when the reply came, not through every stall since its request went out.

The same readings give the recent lag (``recent_ms``) that admission control watches.

Only a request in flight needs the lag, so the ticker runs while a request is open (``hold`` and
``release``, around every ``BotSession.ask``) and for ``IDLE_S`` after the last one closed, then
sleeps until the next: an idle server woke 200 times a second for nothing (85% of its idle CPU, 2-5%
of a core with its workers). A sleeping meter has no recent lag: nothing waits on its loop.
"""

from __future__ import annotations

import asyncio
import collections
import time

TICK_S = 0.005
"""How often the ticker wakes: lag is resolved to about this much."""
WINDOW = 200
"""Ticks kept for ``recent_ms`` (one second's worth)."""
IDLE_S = 1.0
"""How long the ticker runs on after the last open request closed (requests of a match in play
follow each other closer than this), before it sleeps."""


class LoopLag:
    def __init__(self) -> None:
        self.total_s = 0.0
        """Lateness added up since start, in seconds."""
        self._due = time.monotonic()
        self._handle: asyncio.TimerHandle | None = None
        self._recent: collections.deque[float] = collections.deque(maxlen=WINDOW)
        self._ran: collections.deque[tuple[float, float]] = collections.deque(maxlen=WINDOW)
        """(when, the total before it) of the recent ticks, oldest first."""
        self._started = False
        self._holders = 0
        """Requests open now."""
        self._quiet_since = 0.0
        """When the last open request closed (loop time)."""

    @property
    def ticking(self) -> bool:
        return self._handle is not None

    def start(self) -> None:
        self._started = True
        self._quiet_since = asyncio.get_running_loop().time()
        self._wake()

    def stop(self) -> None:
        self._started = False
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def hold(self, now: float) -> float:
        """A request is open from ``now`` (loop time): tick (again) until it is released. Returns
        the reading at ``now``."""
        self._holders += 1
        if self._handle is None and self._started:
            self._wake()
        return self.reading(now)

    def release(self) -> None:
        """A request held by ``hold`` closed."""
        self._holders -= 1
        if self._holders == 0:
            self._quiet_since = asyncio.get_running_loop().time()

    def _wake(self) -> None:
        loop = asyncio.get_running_loop()
        self._due = loop.time() + TICK_S
        self._handle = loop.call_at(self._due, self._tick)

    def reading(self, now: float) -> float:
        """The total lag up to ``now`` (loop time), the due tick's lateness included."""
        return self.total_s + max(0.0, now - self._due) if self._handle is not None else self.total_s

    def since(self, start: float, now: float) -> float:
        """The lag (seconds) of the ticks that ran after ``start`` and of the tick due, up to
        ``now``: the stalls that ended after ``start``, each whole (a stall is counted by the tick
        that ends it). ``start`` older than the ticks remembered counts from the oldest."""
        base = self.total_s
        for ran_at, before in reversed(self._ran):
            if ran_at <= start:
                break
            base = before
        return self.reading(now) - base

    def recent_ms(self, percentile: float = 0.99) -> float:
        """The lateness of recent ticks at this percentile, in ms (0 before any tick)."""
        if not self._recent:
            return 0.0
        ordered = sorted(self._recent)
        return ordered[min(len(ordered) - 1, int(percentile * len(ordered)))] * 1000

    def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        late = max(0.0, now - self._due)
        self._ran.append((now, self.total_s))
        self.total_s += late
        self._recent.append(late)
        if self._holders == 0 and now - self._quiet_since >= IDLE_S:
            self._handle = None  # asleep until the next request: nothing waits on this loop
            self._recent.clear()
            return
        self._due = now + TICK_S
        self._handle = loop.call_at(self._due, self._tick)
