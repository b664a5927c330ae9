"""A running match's live board, shared by all who watch it (``live_feed.match_stream``).

Two hundred spectators must cost the ladder next to nothing, so the work is per match, never per
watcher: one subscription to the server's live hub; one pace (``MAX_FRAMES_PER_S``), at which
the channel picks the newest frame that is due, encodes it once (the spectator view as JSON: the
browser draws the board, ``static/boards.js``) and hands the same bytes to every stream of the
match; the match's facts (game, bots, delay) read once; and its status and secrecy verdict read
once per ``CHECK_S`` by the channel, for all its streams. A new watcher of a watched match is
served from memory: no read of the database, the latest frame at once.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from sqlmodel import select

from kingmaker.ladder.matches.secrecy import Verdict, live_verdict
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Match, MatchStatus
from kingmaker.server.live import LiveFrame, LiveHub, Subscription

CHECK_S = 2.0
"""How often a match's status and secrecy verdict are read again (once for all its streams)."""
STATUS_S = CHECK_S / 4
"""How often the status of a match whose last move was made is read, for its streams' end."""
MAX_FRAMES_PER_S = 10
"""A match's frames sent a second at most (a frame that is due replaces older ones not yet sent)."""
KEPT_FRAMES = 2_000
"""Frames a channel keeps for its delay; past that the oldest are skipped (never shown early)."""
FACTS_KEPT = 1_024
OVER = frozenset({MatchStatus.FINISHED, MatchStatus.VOID, MatchStatus.CANCELLED})
"""The statuses a match never leaves: once read, a stream of it is answered from memory."""

T = TypeVar("T")


class Sent(NamedTuple):
    """A frame as every stream of its match sends it."""

    step: int
    data: bytes
    over: bool


@dataclass(eq=False)
class MatchChannel:
    """One watched match: its frames as the hub published them, the one its streams send now,
    its verdict, and the streams waiting for any of these to change."""

    match_id: int
    encode: Callable[[LiveFrame], bytes]
    delay: float = 0.0
    """Seconds a frame is held back after its move (the league's ``live_delay_s``)."""
    frames: deque[tuple[float, LiveFrame]] = field(default_factory=lambda: deque(maxlen=KEPT_FRAMES))
    """The frames not sent yet (those the sent one replaced are dropped)."""
    latest: Sent | None = None
    """The frame sent last, encoded: a new watcher starts with it."""
    status: str = MatchStatus.RUNNING
    verdict: Verdict = field(default_factory=lambda: Verdict(False, "not read yet"))
    watchers: int = 0
    subscription: Subscription | None = None
    checked: asyncio.Future[None] | None = None
    """Done once the first reading of the status and verdict is in."""
    checking: asyncio.Task[None] | None = None
    closed: bool = False
    _sent_at: float = float("-inf")
    _timer: asyncio.TimerHandle | None = None
    _waiters: list[asyncio.Future[None]] = field(default_factory=list)

    def deliver(self, stamp: float, frame: LiveFrame) -> None:
        """From the hub (on this channel's loop): keep ``frame``, and send it when its time comes."""
        if self.closed:  # a frame on its way as the last watcher left
            return
        self.frames.append((stamp, frame))
        self._schedule()

    def pending(self, after_step: int) -> bool:
        """Whether a frame past ``after_step`` has arrived (due or not)."""
        return bool(self.frames) and self.frames[-1][1].step > after_step

    async def wait(self) -> None:
        """Until the next frame is sent or the status and verdict are read again (every
        ``CHECK_S``: a stream's heartbeat needs no timer of its own)."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if waiter.cancelled() and waiter in self._waiters:  # the stream is gone
                self._waiters.remove(waiter)

    def wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def close(self) -> None:
        self.closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.checking is not None:
            self.checking.cancel()
        self.wake()

    def _schedule(self) -> None:
        """Send the next frame at the pace, once it is due (nothing to do if a send is planned)."""
        sent = self.latest.step if self.latest is not None else -1
        if self._timer is not None or not self.pending(sent):
            return
        earliest = None  # the first frame past the one sent: the next send waits for it
        for stamp, frame in reversed(self.frames):
            if frame.step <= sent:
                break
            earliest = stamp
        assert earliest is not None
        when = max(self._sent_at + 1 / MAX_FRAMES_PER_S, earliest + self.delay)
        loop = asyncio.get_running_loop()
        self._timer = loop.call_at(max(when, loop.time()), self._send)

    def _send(self) -> None:
        self._timer = None
        now = time.monotonic()
        sent = self.latest.step if self.latest is not None else -1
        for stamp, frame in reversed(self.frames):
            if frame.step <= sent:
                break
            if stamp + self.delay <= now:  # the newest frame that is due, encoded once for all
                self.latest = Sent(frame.step, self.encode(frame), frame.over)
                self._sent_at = now
                while self.frames and self.frames[0][1].step <= frame.step:
                    self.frames.popleft()
                self.wake()
                break
        self._schedule()


class LiveWatch:
    """Every watched match's channel, and the reads all of a match's streams share. Channels live
    on the website's loop; facts may be read from its thread pool."""

    def __init__(self, db: Database, live: LiveHub | None, people_delay_s: float = 0.0) -> None:
        self.db = db
        self.live = live
        self.people_delay_s = people_delay_s
        """How late a match with a person is shown (``create_app``)."""
        self.channels: dict[int, MatchChannel] = {}
        self._facts: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._facts_lock = threading.Lock()
        self._reading: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._over: OrderedDict[int, str] = OrderedDict()
        self._checks = _ReadEvery(CHECK_S, functools.partial(read_checks, db))
        self._statuses = _ReadEvery(STATUS_S, functools.partial(match_status, db))

    def facts(self, match_id: int, read: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A match's facts (``read()`` the first time): what does not change while it runs. Read
        under the lock, so that a crowd arriving at once reads them once (one indexed read)."""
        with self._facts_lock:
            found = self._facts.get(match_id)
            if found is None:
                found = self._facts[match_id] = read()
                while len(self._facts) > FACTS_KEPT:
                    self._facts.popitem(last=False)
            self._facts.move_to_end(match_id)
            return found

    async def read_facts(self, match_id: int, read: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """``facts`` from the loop: a crowd that comes to a match at once waits for one reading
        in the thread pool, not for a thread hop each."""
        known = self._facts.get(match_id)
        if known is not None:
            return known
        reading = self._reading.get(match_id)
        if reading is None:
            reading = asyncio.ensure_future(asyncio.to_thread(self.facts, match_id, read))
            self._reading[match_id] = reading
            reading.add_done_callback(lambda _: self._reading.pop(match_id, None))
        return await asyncio.shield(reading)

    def known_facts(self, match_id: int) -> dict[str, Any] | None:
        """The facts if they were read already: no read, and no wait for the lock (held while a
        thread reads another match's facts), a lookup being safe without it."""
        return self._facts.get(match_id)

    def over(self, match_id: int) -> str | None:
        """The status of a match known to be over (read by a stream before), else None."""
        return self._over.get(match_id)

    def _note(self, match_id: int, status: str) -> None:
        if status in OVER and match_id not in self._over:
            self._over[match_id] = status
            while len(self._over) > FACTS_KEPT:
                self._over.popitem(last=False)

    async def checks(self, match_id: int) -> tuple[str, Verdict]:
        """The match's status and live secrecy verdict, read at most once per ``CHECK_S`` (for a
        site without a live hub, which has no channels)."""
        return await self._checks.get(match_id)

    async def status(self, match_id: int) -> str:
        """The match's status, read at most once per ``STATUS_S`` for all the streams waiting for
        its result to be stored (each read it that often before)."""
        status = await self._statuses.get(match_id)
        self._note(match_id, status)
        return status

    async def join(self, match_id: int, encode: Callable[[LiveFrame], bytes], delay: float) -> MatchChannel:
        """The match's channel, its status and verdict read (by its first watcher: the others
        wait for that reading), subscribed to the hub while the match may be watched. The caller
        ``leave``s it."""
        channel = self.channels.get(match_id)
        if channel is None:
            channel = self.channels[match_id] = MatchChannel(match_id, encode, delay)
            channel.checked = asyncio.get_running_loop().create_future()
            channel.checking = asyncio.create_task(self._keep_checking(channel))
        channel.watchers += 1
        try:
            assert channel.checked is not None
            await asyncio.shield(channel.checked)
        except BaseException:
            self.leave(channel)
            raise
        if (
            channel.subscription is None
            and self.live is not None
            and channel.status == MatchStatus.RUNNING
            and channel.verdict.shown
            and self.channels.get(match_id) is channel
        ):
            channel.subscription = self.live.subscribe(str(match_id), channel.deliver)
        return channel

    def leave(self, channel: MatchChannel) -> None:
        channel.watchers -= 1
        if channel.watchers > 0:
            return
        if self.channels.get(channel.match_id) is channel:
            del self.channels[channel.match_id]
        channel.close()
        if self.live is not None and channel.subscription is not None:
            self.live.unsubscribe(channel.subscription)

    async def _keep_checking(self, channel: MatchChannel) -> None:
        """Read the channel's status and verdict now and every ``CHECK_S``, for all its streams."""
        assert channel.checked is not None
        try:
            while True:
                reading = await asyncio.to_thread(read_checks, self.db, channel.match_id)
                channel.status, channel.verdict = reading
                self._note(channel.match_id, channel.status)
                if not channel.checked.done():
                    channel.checked.set_result(None)
                channel.wake()
                await asyncio.sleep(CHECK_S)
        except Exception as error:  # the stream answers the first watcher with it; later, ends
            if not channel.checked.done():
                channel.checked.set_exception(error)
            channel.status = "unknown"
            channel.wake()


class _ReadEvery(Generic[T]):
    """``read(match_id)`` in a worker thread, at most once per ``every`` seconds per match: the
    callers in between (on one loop) share the last reading, or the one under way."""

    def __init__(self, every: float, read: Callable[[int], T]) -> None:
        self.every = every
        self.read = read
        self._readings: dict[int, tuple[float, asyncio.Future[T]]] = {}

    async def get(self, match_id: int) -> T:
        now = time.monotonic()
        entry = self._readings.get(match_id)
        if entry is None or now - entry[0] >= self.every:
            reading = asyncio.ensure_future(asyncio.to_thread(self.read, match_id))
            entry = self._readings[match_id] = (now, reading)
            if len(self._readings) > FACTS_KEPT:  # forget the matches nobody asked about lately
                self._readings = {
                    key: old for key, old in self._readings.items() if now - old[0] < self.every
                }
        return await asyncio.shield(entry[1])


def read_checks(db: Database, match_id: int) -> tuple[str, Verdict]:
    return match_status(db, match_id), live_verdict(db, match_id)


def match_status(db: Database, match_id: int) -> str:
    with db.read() as session:
        return str(session.exec(select(Match.status).where(Match.id == match_id)).one())
