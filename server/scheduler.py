"""Running leagues: keep up to ``concurrency`` of a league's matches in play until none is left.

One task per running league, however many callers watch it. A league resumes where it stopped:
matches a dead server left *running* go back to *scheduled* and are played again from scratch,
and finished matches are never played twice (the ladder refuses to count a match twice). At
start-up the server resumes every league that had begun and not finished.

Matches are claimed and marked running in one transaction (``leagues.claim_matches``). A match
that fails to play or record is voided, and so replayed; an error in the league's own task stops
it with the reason stored (``league status``) and sent to every watcher: no league ends silently
and no watcher waits forever.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from kingmaker.ladder import leagues
from kingmaker.ladder.db import Database
from kingmaker.ladder.matches import void_match
from kingmaker.ladder.models import MatchStatus
from kingmaker.ladder.records import FinishReport, MatchTicket
from kingmaker.server.admission import Admission
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.executors import LocalExecutor, MatchExecutor
from kingmaker.server.rated import claim_with_entrants, play_ticket
from kingmaker.server.results import until_stored
from kingmaker.server.roster import Roster

log = logging.getLogger("kingmaker.server")

ADMISSION_RECHECK_S = 0.05


@dataclass(frozen=True)
class Progress:
    league: str
    counts: dict[str, int]
    last: FinishReport | None = None
    done: bool = False
    reason: str = ""
    """With ``done``: why the run ended."""
    league_id: int = 0


@dataclass
class _Run:
    league_id: int
    name: str
    bot_ids: tuple[int, ...] = ()
    task: asyncio.Task[None] | None = None
    watchers: list[asyncio.Queue[Progress]] = field(default_factory=list)
    latest: Progress | None = None
    in_play: int = 0
    held_back: int = 0
    """Matches admission control is holding back now (see ``admission``)."""

    def publish(self, progress: Progress) -> None:
        self.latest = progress
        for queue in self.watchers:
            queue.put_nowait(progress)


class LeagueRunner:
    def __init__(
        self,
        db: Database,
        roster: Roster,
        control: TimeControl,
        concurrency: int = 2,
        admission: Admission | None = None,
        executor: MatchExecutor | None = None,
    ) -> None:
        self.db = db
        self.roster = roster
        self.executor = executor or LocalExecutor(roster)
        """Where matches are played (``executors``): here by default."""
        self.control = control
        self.concurrency = concurrency
        self.admission = admission
        self._runs: dict[int, _Run] = {}

    def live(self, league_id: int) -> tuple[int, int]:
        """(matches in play, matches held back by admission control) of a running league."""
        run = self._runs.get(league_id)
        if run is None or run.task is None or run.task.done():
            return 0, 0
        return run.in_play, run.held_back

    async def watch(self, name: str, concurrency: int = 0) -> AsyncIterator[Progress]:
        """Start the league if it is not running, then yield its progress until it is done.
        Ends even if the league's task died without saying so (it always should say so)."""
        info = await asyncio.to_thread(leagues.prepare_run, self.db, name, concurrency)
        run = self._start(info.id, info.name, info.bot_ids, info.concurrency or self.concurrency)
        queue: asyncio.Queue[Progress] = asyncio.Queue()
        run.watchers.append(queue)
        try:
            if run.latest is not None:
                yield run.latest
                if run.latest.done:
                    return
            assert run.task is not None
            while True:
                if queue.empty() and run.task.done():
                    counts = await asyncio.to_thread(leagues.league_progress, self.db, run.league_id)
                    yield Progress(
                        run.name, counts, done=True, reason="the league's run ended", league_id=run.league_id
                    )
                    return
                getting = asyncio.ensure_future(queue.get())
                try:
                    await asyncio.wait({getting, run.task}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    getting.cancel()
                if getting.done() and not getting.cancelled():
                    progress = getting.result()
                    yield progress
                    if progress.done:
                        return
        finally:
            run.watchers.remove(queue)

    async def start(self, name: str, concurrency: int = 0) -> None:
        """Run the league in the background (as ``watch`` does, with nobody watching)."""
        info = await asyncio.to_thread(leagues.prepare_run, self.db, name, concurrency)
        self._start(info.id, info.name, info.bot_ids, info.concurrency or self.concurrency)

    async def resume_unfinished(self) -> list[str]:
        """Start again every league that had begun and not finished (after a restart)."""
        resumed = []
        for info in await asyncio.to_thread(leagues.list_leagues, self.db):
            if info.finished or info.paused:
                continue
            counts = await asyncio.to_thread(leagues.league_progress, self.db, info.id)
            if counts[MatchStatus.SCHEDULED] != sum(counts.values()):
                self._start(info.id, info.name, info.bot_ids, info.concurrency or self.concurrency)
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
        """Keep ``concurrency`` matches in play until none is left. Whatever goes wrong, the league
        ends with a stated reason (stored, and sent to every watcher), never silently."""
        in_play: dict[asyncio.Task[FinishReport], MatchTicket] = {}
        accepting = True  # False once the run is ending: no match may start after that
        reason = "finished"
        try:
            reset = await asyncio.to_thread(leagues.resume_league, self.db, run.league_id)
            if reset:
                log.info("league %s: %d interrupted matches will be replayed", run.name, reset)
            await self._publish(run)
            # A match gives up its slot when its referee is done, before its result is stored:
            # the next match is claimed and started first, then the result is written while it
            # plays (``played``). At most ``concurrency`` results wait to be stored at a time.
            playing: set[int] = set()
            filling = asyncio.Lock()

            async def fill() -> bool:
                """Claim and start matches for the free slots; False if admission held some back."""
                async with filling:
                    if not accepting or failed:
                        return True
                    free = max(0, min(concurrency - len(playing), 2 * concurrency - len(in_play)))
                    allowed = free if self.admission is None else self.admission.allowed(free, len(playing))
                    self._hold(run, free - allowed)
                    claimed = []
                    if allowed > 0:
                        busy = frozenset(
                            bot for t in in_play.values() if t.match_id in playing for bot in t.bot_ids
                        )
                        claimed = await until_stored(
                            claim_with_entrants, self.db, run.league_id, allowed, busy
                        )
                    for ticket, entrants in claimed:
                        playing.add(ticket.match_id)
                        hook = functools.partial(played, ticket.match_id)
                        task = asyncio.create_task(
                            play_ticket(self.db, self.executor, ticket, self.control, hook, entrants)
                        )
                        in_play[task] = ticket
                    run.in_play = len(playing)
                    return allowed == free

            failed: list[Exception] = []  # what went wrong starting a match from ``played``

            async def played(match_id: int) -> None:
                playing.discard(match_id)
                try:
                    await fill()
                except Exception as error:  # not this match's fault: the league's loop raises it
                    failed.append(error)

            unheld = await fill()
            while in_play:
                # Held back: look again soon, for the lag may fall before any match ends.
                timeout = None if unheld else ADMISSION_RECHECK_S
                done, _ = await asyncio.wait(in_play, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    await self._publish(run, await self._settle(run, in_play.pop(task), task))
                if failed:
                    raise failed[0]
                unheld = await fill()
            info = await asyncio.to_thread(leagues.get_league, self.db, run.name)
            if info.paused:
                reason = info.status_reason or "paused"
            elif info.status_reason and info.status_reason.startswith("stopped by an admin"):
                reason = info.status_reason
            elif not info.finished:
                reason = "stopped with matches left unplayed; run it again to carry on"
        except asyncio.CancelledError:
            accepting = False
            reason = "stopped: the server shut down; the league resumes when it starts again"
            raise
        except Exception as error:
            accepting = False
            log.exception("league %s stopped by an error", run.name)
            reason = f"stopped by a server error: {error}; run it again to carry on"
            # The matches already in play are not to blame: let them finish and be recorded.
            for task in list(in_play):
                await asyncio.wait({task})
                await self._publish_quietly(run, await self._settle(run, in_play.pop(task), task))
        finally:
            accepting = False
            self._hold(run, 0)
            run.in_play = 0
            for task in in_play:
                task.cancel()
            await asyncio.gather(*in_play, return_exceptions=True)
            await self.executor.retire(set(run.bot_ids))
            await self._finish(run, reason)

    def _hold(self, run: _Run, count: int) -> None:
        """Record that this league holds back ``count`` matches now."""
        if self.admission is not None:
            self.admission.held_back += count - run.held_back
        run.held_back = count

    async def _settle(
        self, run: _Run, ticket: MatchTicket, task: asyncio.Task[FinishReport]
    ) -> FinishReport | None:
        """A played match's report; a match whose playing or recording failed is voided (and so
        replayed) rather than left running."""
        try:
            return task.result()
        except Exception as error:
            log.exception("league %s: match %s failed", run.name, ticket.match_id)
            try:
                return await until_stored(void_match, self.db, ticket.match_id, f"server error: {error}")
            except Exception:
                log.exception("league %s: match %s could not be voided either", run.name, ticket.match_id)
                return None

    async def _finish(self, run: _Run, reason: str) -> None:
        """Store why the run ended and tell every watcher, even if the database is failing."""
        counts = run.latest.counts if run.latest is not None else {}
        try:
            await asyncio.to_thread(leagues.end_league, self.db, run.league_id, reason)
            counts = await asyncio.to_thread(leagues.league_progress, self.db, run.league_id)
        except Exception:
            log.exception("league %s: could not record how its run ended", run.name)
        run.publish(Progress(run.name, counts, done=True, reason=reason, league_id=run.league_id))

    async def _publish_quietly(self, run: _Run, last: FinishReport | None) -> None:
        try:
            await self._publish(run, last)
        except Exception:
            log.exception("league %s: could not read its progress", run.name)

    async def _publish(self, run: _Run, last: FinishReport | None = None) -> None:
        counts = await asyncio.to_thread(leagues.league_progress, self.db, run.league_id)
        run.publish(Progress(run.name, counts, last, league_id=run.league_id))
