"""A person's seat, relayed: one ``Play`` stream to the server (docs/play.md), held for a browser
(``play_routes``) or a terminal (``kingmaker play``).

The relay keeps what the server last said to the seat: the match's start, the open request (the
seat's observation, its legal actions, its clock), the seat's observation after every decision
of the match (``SeatUpdate``: the other seats' moves as they happen, never more than the seat may
see) and the messages it was sent. A thread may wait for the next change (``wait``), and so may
a coroutine (``changed``: the page's event stream holds no thread while it waits). A click is
checked here against the open request before anything goes to the server: a stale request or an
index that is not one of its legal actions is refused with the reason and changes nothing (the
referee would strike it, and a person's click must not cost a default action). Which actions
are legal is the referee's word, never written again here.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc

from kingmaker.games import serial
from kingmaker.games.api import Action, Observation
from kingmaker.sdk.codec import codec_for
from kingmaker.server.web.console.client import ConsoleClient
from kingmaker.server.web.seat_words import end_reason_word
from kingmaker.v1 import admin_pb2, arena_pb2

NOTES_KEPT = 50
"""The most messages from the server a table keeps to show (the newest)."""
MOVES_KEPT = 50
"""The most of the match's moves a table keeps to show (the newest)."""


class Refused(ValueError):
    """A click that cannot be sent: the request is no longer open, or the action is not legal."""


@dataclass
class OpenRequest:
    """The seat's open decision, decoded."""

    request_id: int
    observation: Observation
    actions: tuple[Action, ...]
    bank_ms: int
    received: float
    """When the relay got it (monotonic): the page counts the bank down from here."""


@dataclass
class SeatState:
    """What the seat has been told so far."""

    game: str = ""
    match_id: str = ""
    seat: int = -1
    names: tuple[str, ...] = ()
    control: dict[str, int] = field(default_factory=dict)
    request: OpenRequest | None = None
    last_observation: Observation | None = None
    notes: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    """Who moved at each decision (public: who must act is in the rules), newest last."""
    step: int = 0
    """How many decisions of the match have been made."""
    end: dict[str, Any] | None = None
    failure: str = ""
    """Why the server refused the table or the stream broke ("" while all is well)."""
    version: int = 0
    """Grows with every change, so a page may wait for the next one."""


class SeatRelay:
    """One person's table: a ``Play`` stream and a thread reading it."""

    def __init__(
        self, client: ConsoleClient, token: str | None, setup: admin_pb2.PlaySetup, guest: str = ""
    ) -> None:
        self.state = SeatState(game=setup.game)
        self._changed = threading.Condition()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._outgoing: queue.Queue[admin_pb2.PlayMessage | None] = queue.Queue()
        self._outgoing.put(admin_pb2.PlayMessage(setup=setup))
        self._client = client
        self._call = client.play(self._messages(), token, guest)
        self._reader = threading.Thread(target=self._read, name="person seat relay", daemon=True)
        self._reader.start()

    def answer(self, request_id: int, index: int) -> None:
        """Send the person's choice: legal action ``index`` of request ``request_id``."""
        with self._changed:
            open_request = self.state.request
            if open_request is None or open_request.request_id != request_id:
                raise Refused(f"request {request_id} is not open (it was answered, or its time ran out)")
            if not 0 <= index < len(open_request.actions):
                raise Refused(f"action {index} is not one of the {len(open_request.actions)} legal actions")
            self.state.request = None
            self._bump()
        reply = arena_pb2.ActionReply(
            match_id=self.state.match_id, request_id=request_id, legal_action_index=index
        )
        self._outgoing.put(admin_pb2.PlayMessage(reply=reply))

    def wait(self, after: int, timeout: float) -> SeatState:
        """The state once its version passes ``after`` (or ``timeout`` seconds have gone)."""
        with self._changed:
            self._changed.wait_for(lambda: self.state.version > after or self.over, timeout)
            return self.state

    def snapshot(self) -> SeatState:
        """A copy of the state as it is now (the reader thread changes the relay's own)."""
        with self._changed:
            return dataclasses.replace(self.state)

    async def changed(self, after: int, timeout: float) -> SeatState:
        """A copy of the state once its version passes ``after`` (or ``timeout`` seconds have
        gone), waited for on the caller's event loop."""
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        with self._changed:
            if self.state.version > after or self.over:
                return dataclasses.replace(self.state)
            self._waiters.add(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter[1].wait(), timeout)
        finally:
            with self._changed:
                self._waiters.discard(waiter)
        with self._changed:
            return dataclasses.replace(self.state)

    @property
    def over(self) -> bool:
        return self.state.end is not None or bool(self.state.failure)

    def leave(self) -> None:
        """Close the stream: the seat forfeits, the bots play on."""
        self._outgoing.put(None)
        self._call.cancel()

    def _messages(self) -> Iterator[admin_pb2.PlayMessage]:
        while (message := self._outgoing.get()) is not None:
            yield message

    def _read(self) -> None:
        try:
            for message in self._call:
                with self._changed:
                    self._take(message)
                    self._bump()
        except grpc.RpcError as error:
            with self._changed:
                if self.state.end is None and error.code() != grpc.StatusCode.CANCELLED:
                    self.state.failure = str(self._client.refusal(error))
                self._bump()
        finally:
            self._outgoing.put(None)
            with self._changed:
                if self.state.end is None and not self.state.failure:
                    self.state.failure = "the server ended the table"
                self._bump()

    def _take(self, message: arena_pb2.ServerMessage) -> None:
        kind = message.WhichOneof("message")
        state = self.state
        if kind == "match_start":
            start = message.match_start
            state.game, state.match_id, state.seat = start.game, start.match_id, start.seat
            state.names = tuple(start.seat_bots)
            control = start.time_control
            state.control = {"bank_ms": control.bank_ms, "increment_ms": control.increment_ms}
        elif kind == "action_request":
            request = message.action_request
            codec = codec_for(state.game)
            observation = codec.unpack_observation(request.observation)
            actions = tuple(codec.unpack_action(action) for action in request.legal_actions)
            state.request = OpenRequest(
                request.request_id, observation, actions, request.time_bank_ms, time.monotonic()
            )
            state.last_observation = observation
        elif kind == "seat_update":
            update = message.seat_update
            state.last_observation = codec_for(state.game).unpack_observation(update.observation)
            state.step = update.step
            movers = ", ".join(_seat_name(state, seat) for seat in update.acted)
            state.moves = [*state.moves, f"move {update.step}: {movers}"][-MOVES_KEPT:]
        elif kind == "error":
            state.notes = [*state.notes, message.error.message][-NOTES_KEPT:]
            if state.request is not None and message.error.request_id == state.request.request_id:
                state.request = None  # its time ran out: the referee played for the seat
        elif kind == "match_end":
            end = message.match_end
            state.request = None
            state.end = {
                "end_reason": end_reason_word(end.end_reason),
                "results": [
                    {
                        "seat": r.seat,
                        "bot": r.bot,
                        "score": r.score,
                        "rank": r.rank,
                        "end_reason": end_reason_word(r.end_reason),
                    }
                    for r in end.results
                ],
            }

    def _bump(self) -> None:
        self.state.version += 1
        self._changed.notify_all()
        for loop, event in self._waiters:
            with contextlib.suppress(RuntimeError):  # its loop closed: nobody waits there now
                loop.call_soon_threadsafe(event.set)


def _seat_name(state: SeatState, seat: int) -> str:
    if seat == state.seat:
        return "you"
    name = state.names[seat] if 0 <= seat < len(state.names) else "?"
    return f"{name} (seat {seat})"


def observation_data(observation: Observation | None) -> Any:
    return serial.to_data(observation) if observation is not None else None
