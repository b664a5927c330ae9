"""Matches refereed in worker processes on this machine, so that refereeing uses more than one core.

The central server is one Python process: at about 2,000 decisions a second one core is spent,
whatever the machine has. With ``--executor processes`` each worker is a ``MatchHost`` (the same
small Arena a Ray worker node runs: its own gRPC server on a private Unix socket, its own roster of
warm bot processes, the same jail and limits) in a process of its own. The central server keeps
the database, the schedule and the remote bots; a worker only referees and returns the report.

Requests and reports travel over the worker's stdin and stdout, each a pickle behind a 4-byte
length (trusted: both ends are this program). A worker that dies fails the matches it was playing
with ``WorkerLost``: like any server failure, such a match is void and played again.

Where a match goes: to the worker that has its bots' processes idle, so that none is started for
it (starting one costs ~0.2 s of CPU, the worker's refereeing of several matches), the least busy
such worker; to the least busy worker instead only when the other is far busier
(``_overloaded``). A bot is thus kept warm where it played, not in every worker in turn. The server
follows what each worker keeps (``_Warm``) from the matches it sent and their ends.

Spectators: when the server's live hub (``server/live.py``) gains a first watcher of a match a
worker plays, the worker is told to ``watch`` it and sends its frames back, unasked, until told to
``unwatch`` (or the match ends); a match nobody watches sends nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import pickle
import struct
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kingmaker.games.api import OptionValue
from kingmaker.server.execution.executors import ExecutorError, LocalExecutor, WorkerLoad
from kingmaker.server.execution.match_host import HostSettings
from kingmaker.server.live import LiveHub
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.seats.deadlines import KEEP_BOTS_MAX, TimeControl
from kingmaker.server.seats.roster import KEPT_PER_BOT, Entrant

log = logging.getLogger("kingmaker.server")

_LENGTH = struct.Struct("!I")
LAG_REPORT_S = 0.25
"""How often a worker reports its loop's recent lag (admission control watches it)."""
LAG_NOTICE = 0
"""The request id of a worker's unasked lag reports."""
LIVE_NOTICE = -1
"""The request id of a worker's unasked live frames (of the matches it was told to watch)."""
START_TIMEOUT_S = 60.0
"""How long a worker may take to start (import, open its socket) before the server gives up."""
START_FAILURES = (OSError, asyncio.IncompleteReadError, TimeoutError)
"""How ``_spawn`` fails: no process, a process that exits before it is up, or one too slow."""


class WorkerLost(RuntimeError):
    """The worker process refereeing a match exited before it reported."""


async def send_message(writer: asyncio.StreamWriter, message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    writer.write(_LENGTH.pack(len(data)) + data)
    await writer.drain()


def send_message_now(writer: asyncio.StreamWriter, message: Any) -> None:
    """Send without waiting for the pipe to drain (from code that cannot wait: the referee's
    publishing); one write call, so it never interleaves with another message."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    writer.write(_LENGTH.pack(len(data)) + data)


async def receive_message(reader: asyncio.StreamReader) -> Any:
    """The next message; ``asyncio.IncompleteReadError`` when the other end has closed."""
    (length,) = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
    return pickle.loads(await reader.readexactly(length))


@dataclass
class _Warm:
    """The idle processes a worker keeps, as the server knows them: per bot, when each became
    idle (its roster keeps at most ``KEPT_PER_BOT`` a bot, each for ``keep_s``, and ``most`` in
    all, stopping the one idle longest to keep another)."""

    keep_s: float
    most: int = KEEP_BOTS_MAX
    idle: dict[int, list[float]] = field(default_factory=dict)
    pruned_at: float = 0.0

    def starts(self, bot_ids: Iterable[int], now: float) -> int:
        """How many processes a match of these bots would start here."""
        return sum(max(0, seats - len(self._live(bot, now))) for bot, seats in Counter(bot_ids).items())

    def take(self, bot_ids: Iterable[int], now: float) -> None:
        for bot in bot_ids:
            if times := self._live(bot, now):
                times.pop()

    def give_back(self, bot_ids: Iterable[int], now: float) -> None:
        if now - self.pruned_at > self.keep_s:  # so that bots gone for good are forgotten
            self.pruned_at = now
            for bot in list(self.idle):
                self._live(bot, now)
        for bot in bot_ids:
            times = self.idle.setdefault(bot, [])
            if len(times) < KEPT_PER_BOT and self.most > 0:
                if sum(map(len, self.idle.values())) >= self.most:
                    self._drop_longest_idle()
                    times = self.idle.setdefault(bot, [])  # (it may have been this bot's last)
                times.append(now)
            elif not times:
                del self.idle[bot]

    def _drop_longest_idle(self) -> None:
        bot = min((bot for bot, times in self.idle.items() if times), key=lambda bot: self.idle[bot][0])
        del self.idle[bot][0]  # each bot's times are in the order its processes became idle
        if not self.idle[bot]:
            del self.idle[bot]

    def forget(self, bot_ids: Iterable[int]) -> None:
        for bot in bot_ids:
            self.idle.pop(bot, None)

    def _live(self, bot: int, now: float) -> list[float]:
        times = self.idle.get(bot, [])
        times[:] = [since for since in times if now - since < self.keep_s]
        if not times:
            self.idle.pop(bot, None)
        return times


@dataclass
class _Worker:
    process: asyncio.subprocess.Process
    writer: asyncio.StreamWriter
    reader: asyncio.StreamReader
    warm: _Warm
    pending: dict[int, asyncio.Future[Any]] = field(default_factory=dict)
    playing: int = 0
    """Matches it referees now."""
    played: int = 0
    """Matches it has refereed to their end."""
    lag_ms: float = 0.0
    """Its loop's recent lag, as it last reported (every ``LAG_REPORT_S``) ..."""
    reported_at: float = field(default_factory=time.monotonic)
    """... and when: a report overdue is lag too (a loop blocked for good reports nothing)."""
    listener: asyncio.Task[None] | None = None

    def lag_now_ms(self) -> float:
        overdue = time.monotonic() - self.reported_at - LAG_REPORT_S
        return max(self.lag_ms, overdue * 1000)

    @property
    def alive(self) -> bool:
        return self.process.returncode is None and self.listener is not None and not self.listener.done()


OVERLOAD_FACTOR = 2
OVERLOAD_MARGIN = 3
"""A worker playing at least ``OVERLOAD_FACTOR`` x the least busy one's matches + ``OVERLOAD_MARGIN``
(3 against none, 5 against 1, 7 against 2) takes no more while it is so: better to start a bot's
process in the other (~0.2 s of CPU) than to leave a core idle beside a worker that falls behind."""


def _overloaded(worker: _Worker, least: _Worker) -> bool:
    return worker.playing >= OVERLOAD_FACTOR * least.playing + OVERLOAD_MARGIN


class ProcessExecutor:
    """``workers`` local worker processes; matches with a remote seat stay on the central server."""

    def __init__(
        self, workers: int, settings: HostSettings, local: LocalExecutor, live: LiveHub | None = None
    ) -> None:
        if workers < 1:
            raise ExecutorError("the processes executor needs at least one worker")
        self.count = workers
        # The workers share one machine, and so its most idle bot processes.
        self.settings = dataclasses.replace(settings, keep_bots_max=-(-settings.keep_bots_max // workers))
        self.local = local
        self.workers: list[_Worker] = []
        self._ids = itertools.count(LAG_NOTICE + 1)
        self._replacing = asyncio.Lock()
        self.replaced = 0
        """Workers started in place of ones that exited."""
        self.live = live
        self.playing: dict[str, _Worker] = {}
        """Matches in play in a worker, by match id."""
        self._told: dict[str, _Worker] = {}
        """Matches whose worker was told to send its frames."""
        self._orders: set[asyncio.Task[Any]] = set()
        if live is not None:
            live.on_watch = self._watch

    async def start(self) -> None:
        try:
            for _ in range(self.count):
                self.workers.append(await self._spawn())
        except START_FAILURES as error:
            await self.close()
            raise ExecutorError(f"cannot start a worker process: {error or type(error).__name__}") from None
        log.info("processes executor: %d workers", len(self.workers))

    async def _replace_lost(self) -> None:
        """Start a worker in place of each one that exited (its matches were voided meanwhile)."""
        async with self._replacing:
            for index, worker in enumerate(self.workers):
                if worker.alive:
                    continue
                code = worker.process.returncode
                log.warning("worker process %d exited (code %s); starting another", worker.process.pid, code)
                try:
                    self.workers[index] = await self._spawn()
                    self.replaced += 1
                except START_FAILURES as error:
                    log.error("cannot start a worker process in its place: %s", error or type(error).__name__)

    async def _spawn(self) -> _Worker:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "kingmaker.server.execution.process_worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**26,  # a report with its whole log is one message
        )
        assert process.stdin is not None and process.stdout is not None
        worker = _Worker(
            process,
            process.stdin,
            process.stdout,
            _Warm(self.settings.keep_idle_s, self.settings.keep_bots_max),
        )
        try:
            await send_message(worker.writer, self.settings)
            await asyncio.wait_for(receive_message(worker.reader), START_TIMEOUT_S)  # the host is up
        except BaseException:  # it did not start: leave no process behind
            if process.returncode is None:
                process.kill()
            await process.wait()
            raise
        worker.reported_at = time.monotonic()
        worker.listener = asyncio.create_task(self._listen(worker))
        return worker

    async def _listen(self, worker: _Worker) -> None:
        """Settle each request as its answer comes; fail them all when the worker goes."""
        try:
            while True:
                request_id, ok, value = await receive_message(worker.reader)
                if request_id == LAG_NOTICE:
                    worker.lag_ms, worker.reported_at = value, time.monotonic()
                    continue
                if request_id == LIVE_NOTICE:
                    if self.live is not None:
                        self.live.publish(value)
                    continue
                future = worker.pending.pop(request_id, None)
                if future is not None and not future.done():
                    if ok:
                        future.set_result(value)
                    else:
                        future.set_exception(RuntimeError(f"a worker failed: {value}"))
        except (asyncio.IncompleteReadError, ConnectionError, EOFError, pickle.UnpicklingError):
            pass
        finally:
            try:
                code = await asyncio.wait_for(worker.process.wait(), 30)
            except TimeoutError:  # talking nonsense, or stuck: it can referee nothing more
                worker.process.kill()
                code = await worker.process.wait()
            for future in worker.pending.values():
                if not future.done():
                    future.set_exception(WorkerLost(f"the worker process exited (code {code}) mid-match"))
            worker.pending.clear()

    async def _call(self, worker: _Worker, *request: Any) -> Any:
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        worker.pending[request_id] = future
        try:
            await send_message(worker.writer, (request_id, *request))
        except (ConnectionError, RuntimeError) as error:
            worker.pending.pop(request_id, None)
            raise WorkerLost(f"the worker process cannot be reached: {error}") from None
        return await future

    def _pick(self, bot_ids: list[int]) -> _Worker | None:
        """The live worker that would start fewest processes for these bots, the least busy of
        those; but never one far busier than the least busy (``_overloaded``)."""
        alive = [worker for worker in self.workers if worker.alive]
        if not alive:
            return None
        least = min(alive, key=lambda worker: worker.playing)
        now = time.monotonic()
        return min(
            (worker for worker in alive if not _overloaded(worker, least)),
            key=lambda worker: (worker.warm.starts(bot_ids, now), worker.playing),
        )

    async def play(
        self,
        game: str,
        entrants: Sequence[Entrant],
        seed: int,
        options: Mapping[str, OptionValue],
        control: TimeControl,
        match_id: str,
    ) -> MatchReport:
        if any(entrant.command is None for entrant in entrants):  # a remote seat: refereed here
            return await self.local.play(game, entrants, seed, options, control, match_id)
        if not all(worker.alive for worker in self.workers):
            await self._replace_lost()
        bot_ids = [entrant.bot_id for entrant in entrants if entrant.bot_id is not None]
        worker = self._pick(bot_ids)
        if worker is None:  # none could be started: better played here than not at all
            log.warning("match %s: no worker process is running; playing it in the server", match_id)
            return await self.local.play(game, entrants, seed, options, control, match_id)
        worker.warm.take(bot_ids, time.monotonic())
        worker.playing += 1
        self.playing[match_id] = worker
        try:
            if self.live is not None and match_id in self.live.watching:
                self._watch(match_id, True)
            report: MatchReport = await self._call(
                worker, "play", game, list(entrants), seed, dict(options), control, match_id
            )
        finally:
            worker.playing -= 1
            self.playing.pop(match_id, None)
            self._watch(match_id, False)
        worker.played += 1
        # A bot whose seat ended in a fault was stopped there; the others are kept idle.
        kept = [
            entrant.bot_id
            for entrant, seat in zip(entrants, report.seats, strict=True)
            if entrant.bot_id is not None and not seat.end_reason.is_bot_fault
        ]
        worker.warm.give_back(kept, time.monotonic())
        return report

    def _watch(self, match_id: str, on: bool) -> None:
        """Tell the worker playing ``match_id`` to send its frames (or to stop); the live hub
        calls this when the match gains its first watcher or loses its last."""
        worker = self.playing.get(match_id) if on else self._told.pop(match_id, None)
        if worker is None or (on and match_id in self._told):
            return
        if on:
            self._told[match_id] = worker
        order = asyncio.create_task(self._call(worker, "watch", match_id, on))
        self._orders.add(order)
        order.add_done_callback(self._orders.discard)
        order.add_done_callback(lambda done: done.cancelled() or done.exception())  # a lost worker: fine

    async def retire(self, bot_ids: set[int]) -> None:
        """Stop these bots' warm processes here and in every worker."""
        await self.local.retire(bot_ids)
        alive = [worker for worker in self.workers if worker.alive]
        for worker in alive:
            worker.warm.forget(bot_ids)
        calls = [self._call(worker, "retire", bot_ids) for worker in alive]
        await asyncio.gather(*calls, return_exceptions=True)

    async def close(self) -> None:
        """Stop every worker (and so its bots): asked first, killed if it does not go."""
        workers, self.workers = self.workers, []
        for worker in workers:
            with contextlib.suppress(ConnectionError, RuntimeError):
                worker.writer.close()  # end of input: the worker closes its host and exits
        for worker in workers:
            try:
                await asyncio.wait_for(worker.process.wait(), 30)
            except TimeoutError:
                worker.process.kill()
                await worker.process.wait()
            if worker.listener is not None:
                await asyncio.gather(worker.listener, return_exceptions=True)

    def lag_ms(self) -> float:
        """The worst recent loop lag among the live workers, in ms."""
        return max((worker.lag_now_ms() for worker in self.workers if worker.alive), default=0.0)

    def loads(self) -> list[WorkerLoad]:
        """Each live worker's matches in play, loop lag and matches done, in start order."""
        return [
            WorkerLoad(worker.process.pid, worker.playing, round(worker.lag_now_ms(), 1), worker.played)
            for worker in self.workers
            if worker.alive
        ]

    def pids(self) -> list[int]:
        """The worker processes' ids (for the logs and the tests)."""
        return [worker.process.pid for worker in self.workers if worker.alive]
