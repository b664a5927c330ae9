"""What of a wait for a bot was its own: the rule that extends a wait by the time the machine kept
the bot's processes from a CPU, for a reply (``sessions.BotSession.ask``) and for a launched bot's
hello (``roster.Roster``) alike. ``deadlines`` has the clock the waits are charged to."""

from __future__ import annotations

from typing import Protocol

RUNNABLE_RECHECK_S = 0.05
"""How soon to look again at a bot past its wait whose threads are ready to run but not running."""


class CpuWaits(Protocol):
    """What the server can see of a managed bot's waiting for a CPU (``bot_cpu``)."""

    def waited_since_request(self) -> float:
        """Seconds its threads spent ready to run without a CPU since the request went out."""
        ...

    def runnable_now(self) -> bool:
        """Whether a thread of it is ready to run at this moment."""
        ...


def more_to_wait(wait_seconds: float, own: float, waits: CpuWaits | None) -> float | None:
    """A wait of ``wait_seconds`` for a bot is over by the wall clock, ``own`` seconds of it the
    bot's (the server's share left out): how much longer to wait, or None if the bot is late.

    The time the machine kept the bot's processes waiting for a CPU (``waits``, where the server
    can see them) is not the bot's, up to one more ``wait_seconds``: threads that spin on a
    crowded machine wait for a CPU all the time, and a bot that hangs so must still be called
    late. A bot ready to run but not running now is shut out from the CPU (the kernel adds that
    wait to its count only when it runs again), so it is looked at again shortly. The one rule
    for a reply's wait (``BotSession.ask``) and a launched bot's hello (``Roster``)."""
    starved = min(waits.waited_since_request(), wait_seconds) if waits is not None else 0.0
    owed = wait_seconds - (own - starved)
    if owed > 0.001:
        return owed
    if waits is not None and own < 2 * wait_seconds and waits.runnable_now():
        return RUNNABLE_RECHECK_S
    return None
