"""Bounds on every number a request or a command line may carry, in one place.

The admin API checks a request against these (``server/services/validation.py``), the ladder its
league settings (``leagues.create_league``), and the ``kingmaker`` command line gives each numeric
option the same range (typer's ``min`` and ``max``), so a value the server would refuse is refused
at the edge, in one line, before anything starts or is stored. A test fails for any numeric option
of any command that has no bound. Each bound is generous for real use and small enough that no
single value makes the server do unbounded work, hold a match hostage (a 49-day time bank, 2^31
rounds) or overflow a field of the wire (``uint32``, ``int32``).

Standard library only: the command line imports this on every start, and it sits in the ladder,
the lowest layer that both the server and the ladder's own checks import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

Number = TypeVar("Number", int, float)


class OutOfBounds(ValueError):
    """A number outside its bound; the message says which bound, in one line."""


@dataclass(frozen=True)
class Bound(Generic[Number]):
    """An inclusive range, and what a number in it is called in an error."""

    what: str
    low: Number
    high: Number
    high_text: str = ""
    """How the upper end reads in an error, where its digits would not ("2^63 - 1")."""

    def check(self, value: Number) -> Number:
        """``value``, or ``OutOfBounds`` (NaN is in no range)."""
        if not self.low <= value <= self.high:
            high = self.high_text or f"{self.high:,}"
            raise OutOfBounds(f"{self.what} must be from {self.low:,} to {high}, not {value}")
        return value


# ---- matches and their clock (in a request, 0 means the server's default) -----------------------

SEED = Bound("a seed", 0, 2**63 - 1, "2^63 - 1")
"""Seeds are stored in a signed 64-bit column."""
DECISION_MS = Bound("decision_ms", 0, 10 * 60 * 1000)
BANK_MS = Bound("bank_ms", 0, 60 * 60 * 1000)
INCREMENT_MS = Bound("increment_ms", 0, 10 * 60 * 1000)
MAX_STRIKES = Bound("max_strikes", 0, 100)
PLAYERS = Bound("players", 0, 32)
"""Seats of a match (0: the game's minimum); each game checks its own range within this."""

# ---- leagues ----------------------------------------------------------------------------------

ROUNDS = Bound("rounds", 1, 1_000)
PROMOTE_AFTER = Bound("promote_after", 0, 10_000)
"""A competition tier's matches before an entry above its boss moves up (0: the default, 10)."""
RELEGATE_AFTER = Bound("relegate_after", 0, 10_000)
"""A competition tier's last places in a row before an entry moves down (0: never)."""
LADDER_MATCHES = Bound("max_matches", 1, 1_000_000)
"""How many matches a continuous ladder league may be told to play."""
TIME_BUDGET_S = Bound("time_budget_s", 0.0, 366 * 24 * 3600.0)
"""Seconds a ladder league may be told to play for (more than 0)."""
PLANNED_MATCHES = 10_000
"""The most matches a round robin or gauntlet plans when created (in one short transaction)."""
LIVE_DELAY_S = Bound("live_delay_s", 0.0, 24 * 3600.0)
"""The longest a league may hold its live boards back from spectators."""
CONCURRENCY = Bound("concurrency", 1, 256)
"""Matches a league plays at once (0 in a request: the league's own, or the server's)."""

VERSION = Bound("a version", 0, 2**31 - 1, "2^31 - 1")
"""A bot's version number (0 in a request: the newest); an int32 on the wire."""

# ---- reading ----------------------------------------------------------------------------------

PAGE = Bound("rows a request", 1, 1000)
"""The most rows one list request returns (0 in a request: its default page)."""
OFFSET = Bound("offset", 0, 10_000_000)
PLOTTED_BOTS = Bound("bots in a rating plot", 1, 20)

# ---- the server's own settings (`kingmaker serve`) ---------------------------------------------

CONNECT_TIMEOUT_S = Bound("the connect timeout", 0.1, 3600.0)
BUSY_TIMEOUT_S = Bound("the busy timeout", 0.1, 24 * 3600.0)
KEEP_BOTS_S = Bound("the time idle bot processes are kept", 0.0, 24 * 3600.0)
KEEP_BOTS_MAX = Bound("idle bot processes kept", 0, 100_000)
KEEP_VERSIONS = Bound("versions kept", 0, 1000)
"""Retention: versions of each bot kept beside the active one and those still needed."""
WORKERS = Bound("workers", 0, 256)
"""Worker processes (0: one per CPU) or Ray worker nodes (0: every one)."""

# ---- a duel (`kingmaker duel`, in one process) ------------------------------------------------

ELO = Bound("an Elo difference", -1000.0, 1000.0)
ERROR_RATE = Bound("an error rate", 0.0, 0.5)
"""The SPRT's alpha and beta (``Sprt`` also refuses the ends themselves)."""
DUEL_MATCHES = Bound("max_matches", 1, 1_000_000)
SERVER_DUEL_MATCHES = Bound("max_matches of a duel on the server", 0, 10_000)
"""A duel the server plays costs it a match each: fewer than a local one (0: its default, 400)."""
JOBS = Bound("jobs", 1, 256)
