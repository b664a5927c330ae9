"""Which remote bots of a running ladder league are here, so that none is scheduled (and faulted
``never_connected``) while its author is offline.

A remote bot is *connected* while it has an open stream, of its own, that offered the league's
game. Its matches are claimed only while it is connected; one that has had no such stream for
``AWAY_GRACE_S`` is *away*: the league store cancels its waiting matches (and the scheduler
those claimed before it left whose seats it never took: ``Roster.give_up_waiting``) and plans none
for it until it connects again (a bot restarting, or a network blip, keeps its place). The grace runs from
the last moment it was seen connected, or from the start of the league's run for a bot not
already away. Managed bots are never away: the server starts them itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from kingmaker.server.seats.sessions import SessionPool

AWAY_GRACE_S = 10.0


@dataclass
class Presence:
    pool: SessionPool
    game: str
    remote: set[int]
    """The league's remote entrants (those that can be away)."""
    away: set[int]
    """Those the league store marks away now (kept in step by ``changes``)."""
    grace_s: float = AWAY_GRACE_S
    clock: Callable[[], float] = time.monotonic
    _seen: dict[int, float] = field(default_factory=dict)
    """When each remote bot was last connected (from the start, for those not away then)."""

    def __post_init__(self) -> None:
        started = self.clock()
        self._seen = dict.fromkeys(self.remote - self.away, started)

    def connected(self) -> set[int]:
        """The remote entrants with an open stream of their own offering the game, now."""
        streams = {
            session.identity.bot_id
            for session in self.pool.sessions
            if session.identity.launch_key is None and session.takes_matches and session.plays(self.game)
        }
        return self.remote & streams

    def absent(self) -> frozenset[int]:
        """The remote entrants not connected at this moment (their matches wait)."""
        return frozenset(self.remote - self.connected())

    def changes(self) -> tuple[set[int], set[int]]:
        """(bots now away, bots back) since the last call; ``away`` is updated to match."""
        now = self.clock()
        connected = self.connected()
        for bot in connected:
            self._seen[bot] = now
        gone = {
            bot
            for bot in self.remote - connected - self.away
            if now - self._seen.get(bot, -float("inf")) >= self.grace_s
        }
        back = self.away & connected
        self.away = (self.away | gone) - back
        return gone, back

    def entrants(self, remote: Collection[int]) -> None:
        """The league's remote entrants changed (a bot joined or left): a newcomer gets the grace."""
        now = self.clock()
        for bot in set(remote) - self.remote:
            self._seen.setdefault(bot, now)
        self.remote = set(remote)
        self.away &= self.remote
