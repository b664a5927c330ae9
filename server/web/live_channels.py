"""A running match's live board, shared by all who watch it (``live_feed.match_stream``).

Two hundred spectators must not cost the ladder two hundred times one: so per match there is one
subscription to the server's live hub (not one per stream), each frame is drawn and encoded once,
by the first stream that sends it, and kept as bytes for the others; the match's facts (game,
bots, delay) are read once; and its status and secrecy verdict are read at most once per
``CHECK_S`` for all of its streams together (every stream checked them that often before, each
on its own). A new watcher of a watched match is served from memory.

A stream wakes for a new frame only when it has sent everything due, and sends at most
``MAX_FRAMES_PER_S``: the hub hands each frame to the match's channel once, whatever the number
of watchers.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from sqlmodel import select

from kingmaker.ladder.db import Database
from kingmaker.ladder.models import Match
from kingmaker.ladder.secrecy import Verdict, live_verdict
from kingmaker.server.live import LiveFrame, LiveHub, Subscription

CHECK_S = 2.0
"""How often a match's status and secrecy verdict are read again (once for all its streams)."""
STATUS_S = CHECK_S / 4
"""How often the status of a match whose last move was made is read, for its streams' end."""
KEPT_FRAMES = 2_000
"""Frames a channel keeps for delayed streams; past that the oldest are skipped (never shown early)."""
ENCODED_KEPT = 16
"""Encoded frames a channel keeps (streams of one match send the same few latest steps)."""
FACTS_KEPT = 1_024

T = TypeVar("T")


@dataclass(eq=False)
class MatchChannel:
    """One watched match: its frames as the hub published them, and who waits for the next."""

    match_id: int
    encode: Callable[[LiveFrame], bytes]
    frames: deque[tuple[float, LiveFrame]] = field(default_factory=lambda: deque(maxlen=KEPT_FRAMES))
    watchers: int = 0
    subscription: Subscription | None = None
    _waiters: list[asyncio.Future[None]] = field(default_factory=list)
    _encoded: OrderedDict[int, bytes] = field(default_factory=OrderedDict)

    def deliver(self, stamp: float, frame: LiveFrame) -> None:
        self.frames.append((stamp, frame))
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def wait(self, timeout: float) -> None:
        """Until the next frame arrives, or ``timeout`` seconds."""
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await asyncio.wait({waiter}, timeout=timeout)
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def due(self, after_step: int, delay: float, now: float) -> tuple[LiveFrame | None, float | None]:
        """The newest frame past ``after_step`` that is due (``delay`` seconds after it was
        published), and when the next one not yet due will be (None if there is none)."""
        next_due = None
        for stamp, frame in reversed(self.frames):
            if frame.step <= after_step:
                break
            if stamp + delay <= now:
                return frame, None
            next_due = stamp + delay
        return None, next_due

    def pending(self, after_step: int) -> bool:
        return bool(self.frames) and self.frames[-1][1].step > after_step

    def encoded(self, frame: LiveFrame) -> bytes:
        """The frame's event, drawn and encoded once for every stream of the match."""
        found = self._encoded.get(frame.step)
        if found is None:
            found = self._encoded[frame.step] = self.encode(frame)
            while len(self._encoded) > ENCODED_KEPT:
                self._encoded.popitem(last=False)
        return found


class LiveWatch:
    """Every watched match's channel, and the reads all of a match's streams share. Channels live
    on the website's loop; facts may be read from its thread pool."""

    def __init__(self, db: Database, live: LiveHub | None) -> None:
        self.db = db
        self.live = live
        self.channels: dict[int, MatchChannel] = {}
        self._facts: OrderedDict[int, dict[str, Any]] = OrderedDict()
        self._facts_lock = threading.Lock()
        self._checks = _ReadEvery(CHECK_S, functools.partial(_read_checks, db))
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

    async def checks(self, match_id: int) -> tuple[str, Verdict]:
        """The match's status and live secrecy verdict, read at most once per ``CHECK_S``."""
        return await self._checks.get(match_id)

    async def status(self, match_id: int) -> str:
        """The match's status, read at most once per ``STATUS_S`` for all the streams waiting for
        its result to be stored (each read it that often before)."""
        return await self._statuses.get(match_id)

    def join(self, match_id: int, encode: Callable[[LiveFrame], bytes]) -> MatchChannel:
        assert self.live is not None
        channel = self.channels.get(match_id)
        if channel is None:
            channel = self.channels[match_id] = MatchChannel(match_id, encode)
            channel.subscription = self.live.subscribe(str(match_id), channel.deliver)
        channel.watchers += 1
        return channel

    def leave(self, channel: MatchChannel) -> None:
        channel.watchers -= 1
        if channel.watchers > 0:
            return
        self.channels.pop(channel.match_id, None)
        if self.live is not None and channel.subscription is not None:
            self.live.unsubscribe(channel.subscription)


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


def _read_checks(db: Database, match_id: int) -> tuple[str, Verdict]:
    return match_status(db, match_id), live_verdict(db, match_id)


def match_status(db: Database, match_id: int) -> str:
    with db.read() as session:
        return str(session.exec(select(Match.status).where(Match.id == match_id)).one())
