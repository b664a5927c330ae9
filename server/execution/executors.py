"""Where a league's matches are played: the executor interface and the local executor.

The scheduler decides *which* match to play next and writes its result; an executor decides
*where* it is played and hands back the referee's ``MatchReport``. The local executor (the
default) plays every match in this server process with the bots its ``Roster`` keeps warm; the
Ray executor (``ray_executor``, read it next) plays matches of managed bots on the nodes of a Ray
cluster and everything else here. An executor never writes to the database: the central server
writes each result in one transaction (``rated``), so a match played twice is still counted once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from kingmaker.games.api import OptionValue
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant, Roster

EXECUTORS = ("local", "processes", "ray")
"""What ``serve --executor`` accepts."""


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, which a container or ``taskset``
    narrows), not only the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_executor() -> str:
    """What ``serve`` referees with unless told: worker processes where there is more than one
    core (one process refereeing spends one core, however many the machine has), else itself."""
    return "processes" if usable_cores() > 1 else "local"


class ExecutorError(RuntimeError):
    """The configured executor cannot run (unknown, Ray missing, the cluster out of reach)."""


@dataclass(frozen=True)
class WorkerLoad:
    """One worker process refereeing for the server, as `league status` shows it."""

    pid: int
    in_play: int
    """Matches it is refereeing now."""
    loop_lag_ms: float
    """Its loop's recent lag, as it last reported."""
    matches_done: int
    """Matches it has refereed to their end since it started."""


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

    def loads(self) -> list[WorkerLoad]:
        """The load of each worker process it referees in (none when it has none)."""
        ...


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

    def loads(self) -> list[WorkerLoad]:
        return []


def as_executor(runner: MatchExecutor | Roster) -> MatchExecutor:
    """An executor for callers that hold only the server's roster (one-off matches, tests)."""
    return LocalExecutor(runner) if isinstance(runner, Roster) else runner
