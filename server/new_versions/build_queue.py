"""Builds at once, per author: a build past its author's bound waits its turn instead of running.

One author's twenty submissions must not be twenty builds at once (each may use gigabytes of
memory and hundreds of processes): each author has ``builds_at_once`` places (one by default);
a version submitted while they are taken waits, ``queued``, and starts when one is freed, in the
order submitted. Nothing is refused: the author sees the place in ``bot builds``. The admin's
builds (``author`` None) take no place: the operator is trusted with the machine.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field


@dataclass
class BuildTicket:
    """A place in an author's builds, granted at once or when an earlier build ends."""

    author: int | None
    granted: asyncio.Future[None]
    left: bool = False

    @property
    def waiting(self) -> bool:
        return not self.granted.done()


@dataclass
class BuildQueue:
    running: dict[int, int] = field(default_factory=dict)
    waiting: dict[int, deque[BuildTicket]] = field(default_factory=dict)
    limits: dict[int, int] = field(default_factory=dict)

    def enter(self, author: int | None, limit: int) -> BuildTicket:
        """A ticket for a new build of ``author``'s; ``limit``: their builds at once, now."""
        ticket = BuildTicket(author, asyncio.get_running_loop().create_future())
        if author is None:
            ticket.granted.set_result(None)
            return ticket
        self.limits[author] = max(1, limit)
        line = self.waiting.setdefault(author, deque())
        line.append(ticket)
        self._grant(author)
        return ticket

    def leave(self, ticket: BuildTicket) -> None:
        """The ticket's build ended (or it gave up waiting): its place goes to the next in line."""
        author = ticket.author
        if author is None or ticket.left:
            return
        ticket.left = True
        line = self.waiting.get(author, deque())
        if ticket in line:
            line.remove(ticket)
            ticket.granted.cancel()
        elif ticket.granted.done() and not ticket.granted.cancelled():
            self.running[author] -= 1
        self._grant(author)

    def _grant(self, author: int) -> None:
        line = self.waiting.get(author, deque())
        while line and self.running.get(author, 0) < self.limits.get(author, 1):
            ticket = line.popleft()
            self.running[author] = self.running.get(author, 0) + 1
            ticket.granted.set_result(None)
        if not line:
            self.waiting.pop(author, None)
        if not self.running.get(author):
            self.running.pop(author, None)
