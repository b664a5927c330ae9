"""Running matches as a spectator may see them, for the website's live boards (docs/web.md).

The referee offers a ``LiveFrame`` after each decision of a match someone watches: the game's
spectator view (``Game.spectate``: the public board, never a seat's hidden state) as plain data.
A match nobody watches costs the referee one set lookup per decision, and no frame is built; a
watched one, a frame built and published at most every ``PACE_S`` (bots deciding in microseconds
would otherwise have a frame built, and sent across a worker's pipe, for each of hundreds of
decisions a second that no website shows: it sends ten a second at most).

One ``LiveHub`` per process that referees. In the server, subscribers are the website's streams;
in a worker process (``process_worker``), the one subscriber is the server, which asks for a match
by ``watch`` when someone first watches it and gets its frames back over the pipe
(``process_executor``). A new subscriber is given the match as it stands (the referee's snapshot,
or the latest frame) and then every frame. The hub's own state lives on its owner loop (the
referee's); subscribers on other threads (a website started beside the server, in tests) are
welcome: their calls and their frames cross over thread-safely.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PACE_S = 1 / 10
"""A watched match's frames are built at most this often: the newest decision's when the pace
allows (a frame of a decision a later one replaced is never built); the last one always. The
website sends a match's frames at most 10 times a second (``live_channels.MAX_FRAMES_PER_S``):
built faster, the frames between are built, sent over a worker's pipe and dropped unseen."""

WatchHook = Callable[[str, bool], None]
"""Told when a match gains its first subscriber (True) or loses its last (False)."""


@dataclass(frozen=True)
class LiveFrame:
    match_id: str
    game: str
    step: int
    """How many decisions have been made."""
    to_act: tuple[int, ...]
    """The seats to act next (none once the game is over)."""
    acted: tuple[int, ...]
    """The seats that made the decision that led here."""
    view: dict[str, Any]
    """The game's spectator view, as plain data (``serial.to_data``)."""
    over: bool = False


@dataclass(eq=False)
class Subscription:
    """One watcher of one match: ``deliver(stamp, frame)`` is called for each frame (on the
    subscriber's loop), ``stamp`` being when the hub published it (``time.monotonic``)."""

    match_id: str
    deliver: Callable[[float, LiveFrame], None]
    loop: asyncio.AbstractEventLoop | None = None
    """The subscriber's loop, when it is not the hub's (frames are handed over thread-safely)."""


@dataclass(eq=False)
class FrameQueue:
    """A subscription whose frames wait in an asyncio queue (a website's stream)."""

    subscription: Subscription
    queue: asyncio.Queue[tuple[float, LiveFrame]] = field(default_factory=asyncio.Queue)


class LiveHub:
    def __init__(self, on_watch: WatchHook | None = None) -> None:
        self.watching: set[str] = set()
        """Matches with at least one subscriber: what the referee checks before building a frame."""
        self.on_watch = on_watch
        self.loop: asyncio.AbstractEventLoop | None = None
        """The owner loop, where referees publish (bound at the server's start)."""
        self._subscribers: dict[str, list[Subscription]] = {}
        self._snapshots: dict[str, Callable[[], LiveFrame]] = {}
        self._latest: dict[str, LiveFrame] = {}
        self._built_at: dict[str, float] = {}
        self._offered: dict[str, Callable[[], LiveFrame]] = {}

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    # The referee's side (owner loop).

    def attach(self, match_id: str, snapshot: Callable[[], LiveFrame]) -> None:
        """A match starts here: ``snapshot()`` gives its frame as it stands, for new watchers."""
        self._snapshots[match_id] = snapshot
        if match_id in self.watching:
            self.publish(snapshot())

    def detach(self, match_id: str) -> None:
        """The match is over here: its last frame, if one waits for the pace's beat, is built and
        published now, before the referee reports the result (a stream that learns the match is
        over before its last frame comes would end without it)."""
        self._snapshots.pop(match_id, None)
        self._built_at.pop(match_id, None)
        build = self._offered.pop(match_id, None)
        if build is not None and match_id in self.watching:
            self.publish(build())

    def offer(self, match_id: str, build: Callable[[], LiveFrame]) -> None:
        """A new decision of a watched match: ``build()`` gives its frame (from the referee's
        state, which the next decision changes), called and published now if the pace allows,
        else at the pace's next beat unless a newer decision's ``build`` replaced it by then."""
        if match_id in self._offered:  # a beat is planned: it builds the newest
            self._offered[match_id] = build
            return
        now = time.monotonic()
        next_beat = self._built_at.get(match_id, float("-inf")) + PACE_S
        if now >= next_beat:
            self._built_at[match_id] = now
            self.publish(build())
            return
        self._offered[match_id] = build
        asyncio.get_running_loop().call_later(next_beat - now, self._beat, match_id)

    def _beat(self, match_id: str) -> None:
        build = self._offered.pop(match_id, None)
        if build is None:  # the match is over: ``detach`` published its last frame
            return
        self._built_at[match_id] = time.monotonic()
        if match_id in self.watching:
            self.publish(build())

    def publish(self, frame: LiveFrame) -> None:
        """Hand ``frame`` to its match's subscribers (a frame of a match nobody watches is dropped)."""
        subscribers = self._subscribers.get(frame.match_id)
        if not subscribers:
            return
        self._latest[frame.match_id] = frame
        stamp = time.monotonic()
        for subscription in subscribers:
            _hand_over(subscription, stamp, frame)

    # The watchers' side (any thread).

    def subscribe(self, match_id: str, deliver: Callable[[float, LiveFrame], None]) -> Subscription:
        """Start watching: ``deliver`` gets the match as it stands, then each frame."""
        subscription = Subscription(match_id, deliver, _running_loop())
        self._on_owner(self._add, subscription)
        return subscription

    def queue(self, match_id: str) -> FrameQueue:
        """A subscription whose frames wait in a queue (call from the loop that reads it)."""
        queue: asyncio.Queue[tuple[float, LiveFrame]] = asyncio.Queue()
        return FrameQueue(
            self.subscribe(match_id, lambda stamp, frame: queue.put_nowait((stamp, frame))), queue
        )

    def unsubscribe(self, subscription: Subscription) -> None:
        self._on_owner(self._remove, subscription)

    def _add(self, subscription: Subscription) -> None:
        match_id = subscription.match_id
        subscribers = self._subscribers.setdefault(match_id, [])
        subscribers.append(subscription)
        first = len(subscribers) == 1
        self.watching.add(match_id)
        snapshot = self._snapshots.get(match_id)
        now = self._latest.get(match_id) if snapshot is None else snapshot()
        if now is not None:
            _hand_over(subscription, time.monotonic(), now)
        if first and snapshot is None and self.on_watch is not None:
            self.on_watch(match_id, True)  # refereed elsewhere: ask for its frames

    def _remove(self, subscription: Subscription) -> None:
        match_id = subscription.match_id
        subscribers = self._subscribers.get(match_id, [])
        if subscription in subscribers:
            subscribers.remove(subscription)
        if subscribers:
            return
        self._subscribers.pop(match_id, None)
        self._latest.pop(match_id, None)
        self.watching.discard(match_id)
        if self.on_watch is not None:
            self.on_watch(match_id, False)

    def _on_owner(self, call: Callable[[Subscription], None], subscription: Subscription) -> None:
        if self.loop is None or self.loop is _running_loop():
            call(subscription)
        else:
            self.loop.call_soon_threadsafe(call, subscription)


def _hand_over(subscription: Subscription, stamp: float, frame: LiveFrame) -> None:
    loop = subscription.loop
    if loop is None or loop is _running_loop():
        subscription.deliver(stamp, frame)
    elif not loop.is_closed():
        loop.call_soon_threadsafe(subscription.deliver, stamp, frame)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None
