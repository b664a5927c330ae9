"""Running leagues: keep up to ``concurrency`` of a league's matches in play until none is left.

One task per running league, however many callers watch it. A league resumes where it stopped:
matches a dead server left *running* go back to *scheduled* and are played again from scratch,
and finished matches are never played twice (the ladder refuses to count a match twice). At
start-up the server resumes every league that had begun and not finished.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from kingmaker.ladder import leagues
from kingmaker.ladder.db import Database
from kingmaker.ladder.matches import mark_running
from kingmaker.ladder.models import MatchStatus
from kingmaker.ladder.records import FinishReport, MatchTicket
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.rated import play_ticket
from kingmaker.server.roster import Roster

log = logging.getLogger("kingmaker.server")


@dataclass(frozen=True)
class Progress:
    league: str
    counts: dict[str, int]
    last: FinishReport | None = None
    done: bool = False


@dataclass
class _Run:
    league_id: int
    name: str
    bot_ids: tuple[int, ...] = ()
    task: asyncio.Task[None] | None = None
    watchers: list[asyncio.Queue[Progress]] = field(default_factory=list)
    latest: Progress | None = None

    def publish(self, progress: Progress) -> None:
        self.latest = progress
        for queue in self.watchers:
            queue.put_nowait(progress)


class LeagueRunner:
    def __init__(self, db: Database, roster: Roster, control: TimeControl, concurrency: int = 2) -> None:
        self.db = db
        self.roster = roster
        self.control = control
        self.concurrency = concurrency
        self._runs: dict[int, _Run] = {}

    async def watch(self, name: str, concurrency: int = 0) -> AsyncIterator[Progress]:
        """Start the league if it is not running, then yield its progress until it is done."""
        info = await asyncio.to_thread(leagues.get_league, self.db, name)
        run = self._start(info.id, info.name, info.bot_ids, concurrency or self.concurrency)
        queue: asyncio.Queue[Progress] = asyncio.Queue()
        run.watchers.append(queue)
        try:
            if run.latest is not None:
                yield run.latest
            while True:
                progress = await queue.get()
                yield progress
                if progress.done:
                    return
        finally:
            run.watchers.remove(queue)

    async def resume_unfinished(self) -> list[str]:
        """Start again every league that had begun and not finished (after a restart)."""
        resumed = []
        for info in await asyncio.to_thread(leagues.list_leagues, self.db):
            if info.finished:
                continue
            counts = await asyncio.to_thread(leagues.league_progress, self.db, info.id)
            if counts[MatchStatus.SCHEDULED] != sum(counts.values()):
                self._start(info.id, info.name, info.bot_ids, self.concurrency)
                resumed.append(info.name)
        return resumed

    async def stop(self) -> None:
        tasks = [run.task for run in self._runs.values() if run.task is not None and not run.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _start(self, league_id: int, name: str, bot_ids: tuple[int, ...], concurrency: int) -> _Run:
        run = self._runs.get(league_id)
        if run is None or run.task is None or run.task.done():
            run = _Run(league_id, name, bot_ids)
            run.task = asyncio.create_task(self._play(run, concurrency), name=f"league {name}")
            self._runs[league_id] = run
        return run

    async def _play(self, run: _Run, concurrency: int) -> None:
        reset = await asyncio.to_thread(leagues.resume_league, self.db, run.league_id)
        if reset:
            log.info("league %s: %d interrupted matches will be replayed", run.name, reset)
        in_play: set[asyncio.Task[FinishReport]] = set()
        await self._publish(run)
        try:
            while True:
                free = concurrency - len(in_play)
                for ticket in await asyncio.to_thread(self._claim, run.league_id, free) if free > 0 else []:
                    in_play.add(asyncio.create_task(play_ticket(self.db, self.roster, ticket, self.control)))
                if not in_play:
                    break
                done, in_play = await asyncio.wait(in_play, return_when=asyncio.FIRST_COMPLETED)
                for finished in done:
                    await self._publish(run, finished.result())
        finally:
            for task in in_play:
                task.cancel()
            await asyncio.gather(*in_play, return_exceptions=True)
            await self.roster.retire(set(run.bot_ids))
        await self._publish(run, done=True)

    def _claim(self, league_id: int, limit: int) -> list[MatchTicket]:
        """The next scheduled matches, marked running before anyone plays them (in a worker thread)."""
        return [
            mark_running(self.db, ticket.match_id)
            for ticket in leagues.next_matches(self.db, league_id, limit)
        ]

    async def _publish(self, run: _Run, last: FinishReport | None = None, done: bool = False) -> None:
        counts = await asyncio.to_thread(leagues.league_progress, self.db, run.league_id)
        run.publish(Progress(run.name, counts, last, done))
