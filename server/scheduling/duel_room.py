"""Room for a duel's seeds: the games of one A/B duel play side by side while the server keeps up.

A duel of several games plays each game's seeds in a task of its own. Before a seed starts, it
asks the server's admission control (``seats.admission``), as a league does before a match:
while the loop lags past its limit and another of the duel's seeds is in play, the seed waits,
so under load the duel falls back to one seed at a time and the ladder keeps its pace; with
room, every game moves at once. Without admission control (the operator turned it off), nothing
waits.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from kingmaker.server.seats.admission import Admission

WAIT_S = 0.05
"""How often a waiting seed asks again (the lag is measured over the last second)."""


class SeedRoom:
    def __init__(self, admission: Admission | None = None) -> None:
        self.admission = admission
        self.in_play = 0
        """The duel's seeds in play now, over all its games."""

    @asynccontextmanager
    async def seed(self) -> AsyncIterator[None]:
        """A place for one seed while it plays; waits while the server has no room for it."""
        while self.admission is not None and self.admission.allowed(1, self.in_play) == 0:
            await asyncio.sleep(WAIT_S)
        self.in_play += 1
        try:
            yield
        finally:
            self.in_play -= 1
