"""Guests at the tables: a visitor without an author token who plays under a name of their
choosing, when the admin allows it (``serve --guests N``: at most N guests seated at once; 0,
the default, takes none). A guest is a person like an author at the table (``play``), under a
seat row of its own that says so (``person:guest:NAME``), and like every person's match a
guest's is never rated. How often one address may ask for a seat is the website's sign-in limit.
"""

from __future__ import annotations

import threading

from kingmaker.server.services.permissions import bearer

HEADER = "kingmaker-guest"
"""The call's metadata that names the guest (a call with a token is never a guest's)."""


class NoGuestSeat(Exception):
    """Refused: this server takes no guests, or every guest seat is taken, or the name is."""


def guest_of(metadata: object) -> str:
    """The guest a call names (``kingmaker-guest: NAME``), or "" (none, or a call with a token)."""
    found = dict(metadata or ())  # type: ignore[call-overload]
    return "" if bearer(metadata) else str(found.get(HEADER, "")).strip()


class GuestSeats:
    """The guests seated now, at most ``bound``."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self._seated: set[str] = set()
        self._lock = threading.Lock()

    def take(self, name: str) -> None:
        """Seat guest ``name``, or raise ``NoGuestSeat`` with the reason."""
        with self._lock:
            if self.bound == 0:
                raise NoGuestSeat("this server takes no guests (its admin may allow them: serve --guests N)")
            if name in self._seated:
                raise NoGuestSeat(f"a guest called {name} is at a table already: pick another name")
            if len(self._seated) >= self.bound:
                raise NoGuestSeat(f"all {self.bound} guest seats are taken: try again when a table ends")
            self._seated.add(name)

    def leave(self, name: str) -> None:
        with self._lock:
            self._seated.discard(name)
