"""Where a league's matches are played: the executor interface and the local executor.

The scheduler decides *which* match to play next and writes its result; an executor decides
*where* it is played and hands back the referee's ``MatchReport``. The local executor (the
default) plays every match in this server process with the bots its ``Roster`` keeps warm; the
Ray executor (``ray_executor``, read it next) plays matches of managed bots on the nodes of a Ray
cluster and everything else here. An executor never writes to the database: the central server
writes each result in one transaction (``rated``), so a match played twice is still counted once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from kingmaker.games.api import OptionValue
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.matches import play_match
from kingmaker.server.referee import MatchReport
from kingmaker.server.roster import Entrant, Roster

EXECUTORS = ("local", "processes", "ray")
"""What ``serve --executor`` accepts."""


class ExecutorError(RuntimeError):
    """The configured executor cannot run (unknown, Ray missing, the cluster out of reach)."""


class MatchExecutor(Protocol):
    """Plays one match and returns its report; keeps bots warm between matches until retired."""

    async def play(
        self,
        game: str,
        entrants: Sequence[Entrant],
        seed: int,
        options: Mapping[str, OptionValue],
        control: TimeControl,
        match_id: str,
    ) -> MatchReport: ...

    async def retire(self, bot_ids: set[int]) -> None:
        """Stop the kept processes of these bots, wherever they run."""

    async def close(self) -> None:
        """Stop everything this executor started."""


class LocalExecutor:
    """Every match in this process, with the roster's warm bots (today's behaviour)."""

    def __init__(self, roster: Roster) -> None:
        self.roster = roster

    async def play(
        self,
        game: str,
        entrants: Sequence[Entrant],
        seed: int,
        options: Mapping[str, OptionValue],
        control: TimeControl,
        match_id: str,
    ) -> MatchReport:
        return await play_match(self.roster, game, entrants, seed, options, control, match_id)

    async def retire(self, bot_ids: set[int]) -> None:
        await self.roster.retire(bot_ids)

    async def close(self) -> None:
        """The roster belongs to the server, which closes it."""


def as_executor(runner: MatchExecutor | Roster) -> MatchExecutor:
    """An executor for callers that hold only the server's roster (one-off matches, tests)."""
    return LocalExecutor(runner) if isinstance(runner, Roster) else runner
