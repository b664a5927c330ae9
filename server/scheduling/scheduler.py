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
import time
from collections import Counter, deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import cast

from kingmaker.ladder.bots import bots as ladder_bots
from kingmaker.ladder.leagues import league_counts, league_lifecycle, leagues, membership
from kingmaker.ladder.matches.matches import void_match
from kingmaker.ladder.records import FinishReport, MatchTicket
from kingmaker.ladder.result_batch import StoredResult
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import MatchStatus
from kingmaker.server.execution.executors import LocalExecutor, MatchExecutor
from kingmaker.server.refereeing.result_writer import ResultWriter
from kingmaker.server.refereeing.results import until_stored
from kingmaker.server.scheduling.rated import claim_with_entrants, play_ticket
from kingmaker.server.seats.admission import Admission
from kingmaker.server.seats.barred import barred
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.presence import AWAY_GRACE_S, Presence
from kingmaker.server.seats.roster import Roster
from kingmaker.v1 import arena_pb2

log = logging.getLogger("kingmaker.server")

ADMISSION_RECHECK_S = 0.05
PRESENCE_RECHECK_S = 1.0
"""How often a ladder with nothing to play looks again at who is here (a bot connecting wakes it
sooner)."""
RATE_WINDOW_S = 60.0
"""Matches per minute are counted over the last minute of the run (or the run so far)."""


@dataclass(frozen=True)
class Progress:
    league: str
    counts: dict[str, int]
    last: FinishReport | None = None
    done: bool = False
    reason: str = ""
    """With ``done``: why the run ended."""
    league_id: int = 0


@dataclass(frozen=True)
class RunState:
    """What a running league is doing now, for ``league status`` and ``league run``."""

    in_play: int = 0
    held_back: int = 0
    """Matches admission control holds back now."""
    held_for_s: float = 0.0
    """How long it has held them back, this time."""
    held_total_s: float = 0.0
    """How long it held matches back in all, this run."""
    matches_per_minute: float = 0.0
    waiting: str = ""
    """Why a ladder has nothing in play (its bots are away); empty otherwise."""


@dataclass
class _Run:
    league_id: int
    name: str
    task: asyncio.Task[None] | None = None
    watchers: list[asyncio.Queue[Progress]] = field(default_factory=list)
    latest: Progress | None = None
    in_play: int = 0
    held_back: int = 0
    """Matches admission control is holding back now (see ``admission``)."""
    held_since: float | None = None
    """When admission control began holding this league's matches back (monotonic seconds)."""
    held_total_s: float = 0.0
    """How long it held matches back in earlier spells of this run."""
    presence: Presence | None = None
    """For a ladder league: which of its remote bots are here."""
    waiting: str = ""
    """Why a ladder has nothing in play now (its bots are away), in a sentence; empty otherwise."""
    ending: bool = False
    """The run has played its last match (paused, stopped, failed): a new run waits for it."""
    started: float = field(default_factory=time.monotonic)
    finishes: deque[float] = field(default_factory=deque)
    """When matches finished within the last ``RATE_WINDOW_S`` (monotonic seconds)."""

    def forget_finishes(self, now: float) -> None:
        """Drop the finishes older than the rate's window (so the record stays small)."""
        while self.finishes and self.finishes[0] < now - RATE_WINDOW_S:
            self.finishes.popleft()

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
        away_grace: float = AWAY_GRACE_S,
    ) -> None:
        self.db = db
        self.roster = roster
        self.executor = executor or LocalExecutor(roster)
        """Where matches are played (``executors``): here by default."""
        self.control = control
        self.concurrency = concurrency
        self.admission = admission
        self.away_grace = away_grace
        """How long a ladder's remote bot may go unconnected before it is away (``presence``)."""
        self._runs: dict[int, _Run] = {}
        self.results = ResultWriter(db)
        """Every league's results, written in group commits."""

    def is_running(self, league_id: int) -> bool:
        """Whether a run of the league is going on (not ending)."""
        run = self._runs.get(league_id)
        return run is not None and run.task is not None and not run.task.done() and not run.ending

    def live(self, league_id: int) -> tuple[int, int]:
        """(matches in play, matches held back by admission control) of a running league."""
        state = self.state(league_id)
        return state.in_play, state.held_back

    def state(self, league_id: int) -> RunState:
        """What the league's run is doing now (all zero when it is not running)."""
        run = self._runs.get(league_id)
        if run is None or run.task is None or run.task.done():
            return RunState()
        now = time.monotonic()
        held_for = now - run.held_since if run.held_since is not None else 0.0
        run.forget_finishes(now)
        span = min(RATE_WINDOW_S, now - run.started)
        rate = 60.0 * len(run.finishes) / span if span > 0 else 0.0
        return RunState(run.in_play, run.held_back, held_for, run.held_total_s + held_for, rate, run.waiting)

    async def entrants_changed(self, league_id: int) -> None:
        """A bot joined or left the league: a running ladder looks again at who is here."""
        run = self._runs.get(league_id)
        if run is None or run.presence is None or run.task is None or run.task.done():
            return
        run.presence.entrants(await asyncio.to_thread(membership.remote_entrants, self.db, league_id))
        self.roster.pool.notify()  # wakes a ladder that waits for bots

    async def watch(self, name: str, concurrency: int = 0) -> AsyncIterator[Progress]:
        """Start the league if it is not running, then yield its progress until it is done.
        Ends even if the league's task died without saying so (it always should say so)."""
        info = await asyncio.to_thread(league_lifecycle.prepare_run, self.db, name, concurrency)
        await self._ended(info.id)
        run = self._start(info.id, info.name, info.concurrency or self.concurrency)
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
                    counts = await asyncio.to_thread(league_counts.league_progress, self.db, run.league_id)
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
        info = await asyncio.to_thread(league_lifecycle.prepare_run, self.db, name, concurrency)
        await self._ended(info.id)
        self._start(info.id, info.name, info.concurrency or self.concurrency)

    async def _ended(self, league_id: int) -> None:
        """Let a run that is ending (paused or stopped, finishing its last matches and stopping
        its bots) end, so that the league starts afresh rather than joining it."""
        run = self._runs.get(league_id)
        if run is not None and run.ending and run.task is not None and not run.task.done():
            await asyncio.wait({run.task})

    async def resume_unfinished(self) -> list[str]:
        """Start again every league that had begun and not finished (after a restart)."""
        resumed = []
        for info in await asyncio.to_thread(leagues.list_leagues, self.db):
            if info.finished or info.paused:
                continue
            counts = await asyncio.to_thread(league_counts.league_progress, self.db, info.id)
            if counts[MatchStatus.SCHEDULED] != sum(counts.values()):
                self._start(info.id, info.name, info.concurrency or self.concurrency)
                resumed.append(info.name)
        return resumed

    async def stop(self) -> None:
        tasks = [run.task for run in self._runs.values() if run.task is not None and not run.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _start(self, league_id: int, name: str, concurrency: int) -> _Run:
        run = self._runs.get(league_id)
        if run is None or run.task is None or run.task.done():
            run = _Run(league_id, name)
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
            reset = await asyncio.to_thread(league_lifecycle.resume_league, self.db, run.league_id)
            if reset:
                log.info("league %s: %d interrupted matches will be replayed", run.name, reset)
            run.presence = await self._presence(run)
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
                    absent = await self._absent(run)
                    if run.presence is not None and run.presence.away:
                        for ticket in in_play.values():  # claimed before they left; never begun
                            self.roster.give_up_waiting(str(ticket.match_id), run.presence.away)
                    if allowed > 0:
                        # Counted: a bot in two matches already is the last to get a third.
                        busy = Counter(
                            bot for t in in_play.values() if t.match_id in playing for bot in t.bot_ids
                        )
                        claimed = await until_stored(
                            claim_with_entrants, self.db, run.league_id, allowed, busy, absent
                        )
                    for ticket, entrants in claimed:
                        playing.add(ticket.match_id)
                        hook = functools.partial(played, ticket.match_id)
                        task = asyncio.create_task(
                            play_ticket(
                                self.db,
                                self.executor,
                                ticket,
                                self.control,
                                hook,
                                entrants,
                                self.results.finish,
                            )
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
            while True:
                while in_play:
                    # Held back: look again soon, for the lag may fall before any match ends. A
                    # ladder looks again at who is here while its matches play (``presence``).
                    timeout = None if unheld else ADMISSION_RECHECK_S
                    if run.presence is not None:
                        timeout = min(timeout or PRESENCE_RECHECK_S, PRESENCE_RECHECK_S)
                    done, _ = await asyncio.wait(
                        in_play, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                    )
                    for task in done:
                        await self._publish(run, await self._settle(run, in_play.pop(task), task))
                    if failed:
                        raise failed[0]
                    unheld = await fill()
                if not await self._waits_for_bots(run):
                    run.ending = True
                    break
                # A ladder whose bots are away: wait for one to connect (or look again soon).
                await self.roster.pool.wait_for_change(PRESENCE_RECHECK_S)
                unheld = await fill()
                if in_play:
                    run.waiting = ""
            info = await asyncio.to_thread(leagues.get_league, self.db, run.name)
            if info.paused:
                reason = info.status_reason or "paused"
            elif info.status_reason and info.status_reason.startswith("stopped by an admin"):
                reason = info.status_reason
            elif not info.finished:
                reason = "stopped with matches left unplayed; run it again to carry on"
        except asyncio.CancelledError:
            accepting = False
            run.ending = True
            reason = "stopped: the server shut down; the league resumes when it starts again"
            raise
        except Exception as error:
            accepting = False
            run.ending = True
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
            # The bots' processes are not stopped here: kept idle a while (``Roster.keep_idle_s``),
            # the next league or run finds them started.
            await self._finish(run, reason)

    def _hold(self, run: _Run, count: int) -> None:
        """Record that this league holds back ``count`` matches now (and since when)."""
        if self.admission is not None:
            self.admission.held_back += count - run.held_back
        run.held_back = count
        now = time.monotonic()
        if count and run.held_since is None:
            run.held_since = now
        elif not count and run.held_since is not None:
            run.held_total_s += now - run.held_since
            run.held_since = None

    async def _presence(self, run: _Run) -> Presence | None:
        """For a ladder league, who of its remote bots is here (None for other formats)."""
        info = await asyncio.to_thread(leagues.get_league, self.db, run.name)
        if info.format != "ladder":
            return None
        remote = await asyncio.to_thread(membership.remote_entrants, self.db, run.league_id)
        return Presence(self.roster.pool, info.game, remote, set(info.away_ids), self.away_grace)

    async def _absent(self, run: _Run) -> frozenset[int]:
        """The league's remote bots not connected now; those away long enough are marked so (their
        waiting matches cancelled), and those back are marked back."""
        if run.presence is None:
            return frozenset()
        gone, back = run.presence.changes()
        if gone or back:
            await until_stored(membership.mark_presence, self.db, run.league_id, gone, back)
            log.info("league %s: away %s, back %s", run.name, sorted(gone), sorted(back))
        return run.presence.absent()

    async def _waits_for_bots(self, run: _Run) -> bool:
        """Whether a ladder with nothing in play is waiting for its bots (rather than done,
        paused or stopped); if so ``run.waiting`` says why."""
        if run.presence is None:
            return False
        info = await asyncio.to_thread(leagues.get_league, self.db, run.name)
        if info.finished or info.paused:
            return False
        away = await asyncio.to_thread(ladder_bots.names_of, self.db, sorted(run.presence.away))
        run.waiting = (
            f"waiting for bots: {', '.join(sorted(away.values()))} away (not connected)"
            if away
            else "waiting for bots: too few are present to fill a match"
        )
        return True

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
            await asyncio.to_thread(league_lifecycle.end_league, self.db, run.league_id, reason)
            counts = await asyncio.to_thread(league_counts.league_progress, self.db, run.league_id)
        except Exception:
            log.exception("league %s: could not record how its run ended", run.name)
        run.publish(Progress(run.name, counts, done=True, reason=reason, league_id=run.league_id))

    async def _publish_quietly(self, run: _Run, last: FinishReport | None) -> None:
        try:
            await self._publish(run, last)
        except Exception:
            log.exception("league %s: could not read its progress", run.name)

    async def _publish(self, run: _Run, last: FinishReport | None = None) -> None:
        if last is not None and last.status == MatchStatus.FINISHED and not last.already_recorded:
            run.finishes.append(time.monotonic())
            run.forget_finishes(run.finishes[-1])
            run.waiting = ""
        if last is not None and last.suspended_bot_ids:
            await self._end_suspended(last.suspended_bot_ids)
        if isinstance(last, StoredResult) and last.counts is not None:
            counts = last.counts  # read as the result was stored (``result_batch``)
        else:
            counts = await asyncio.to_thread(league_counts.league_progress, self.db, run.league_id)
        run.publish(Progress(run.name, counts, last, league_id=run.league_id))

    async def _end_suspended(self, bot_ids: tuple[int, ...]) -> None:
        """A bot just suspended is told why on each of its open streams, which end once their
        matches in play are over (it would otherwise wait there for a match that never comes);
        its kept processes are stopped."""
        await self.executor.retire(set(bot_ids))
        for bot_id in bot_ids:
            sessions = self.roster.pool.sessions_of(bot_id)
            if not sessions:
                continue
            why, code = barred(await asyncio.to_thread(ladder_bots.get_bot_by_id, self.db, bot_id))
            for session in sessions:
                if why and session.identity.launch_key is None:
                    session.drain(cast(arena_pb2.ErrorCode, code), why)
