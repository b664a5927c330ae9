"""Connected bots: one ``BotSession`` per open Arena stream, and the pool that admits them.

A session owns the stream's outgoing queue and the requests it has open. It checks replies
only at the protocol level (is this request open, on this stream, for this match); whether the
action is legal is the referee's business. Late, duplicate and foreign replies get a clear
error and are otherwise ignored; a stream that keeps sending what nobody asked for, or sends what
cannot be decoded, has broken the protocol: nothing more is read from it, its seats forfeit, and
it stays open only until each match it is in has told it how it ended (``match_end``).
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from kingmaker.server.loop_lag import LoopLag
from kingmaker.server.seats.own_time import CpuWaits, more_to_wait
from kingmaker.v1 import arena_pb2

UNSOLICITED_LIMIT = 20
"""Messages nobody asked for (unknown requests, second answers, repeated hellos) a stream may send
between two of its matches' ends before it is closed for flooding. The count starts again at each
match end, so a stream is charged for what it did in the match at hand, never for its history."""

REMEMBERED_REQUESTS = 256
"""How many answered or expired request ids a session remembers, to tell late from unknown."""


@dataclass(frozen=True)
class Identity:
    """Who is at the other end of a stream, as established by its token."""

    bot: str
    bot_id: int | None = None
    """The registered bot's id; None for a bot launched for a single match."""
    launch_key: str | None = None
    """For a launched bot: the one-time token the launcher gave it."""
    barred: str = ""
    """Why this bot may not play now (suspended, disabled), told to it before its stream ends."""
    barred_code: int = 0
    """The ``ErrorCode`` that says so (``SUSPENDED``, ``DISABLED``)."""


REPLY_STALL_S = 0.05
"""A reply that reached the server while its event loop was stalled waited through that stall,
then passes a few more loop iterations before the referee has it: the loop's stalls that ended
less than this long before a reply was read are the server's time. Earlier ones are the bot's:
the loop ran after them and read whatever had come (a stall while the bot held the request did
not keep it from replying)."""

LAST_WORD_WAIT_S = 5.0
"""How long a leaving stream whose hello promised ``MatchEndSeen`` stays open after its last
match's end, for that acknowledgment. Ending the call as the bot writes it fails the write, and
gRPC's client then reports INTERNAL in place of the OK the server sent (grpc/grpc#36066)."""


@dataclass
class Answer:
    """What became of one request."""

    reply: arena_pb2.ActionReply | None
    elapsed_ms: float
    closed: bool = False
    """True when the stream closed before an answer came."""
    server_lag_ms: float = 0.0
    """How much of ``elapsed_ms`` was the server's, not the bot's: the request waiting for the
    stream to take it, and the reply waiting through the loop's stall (``REPLY_STALL_S``)."""
    waited_ms: float = 0.0
    """How long the bot's threads waited for a CPU meanwhile (read only for a reply that took
    over half its wait; 0 where the server cannot see the bot's processes)."""
    stray: str = ""
    """For a request with no reply: the reply the bot sent meanwhile naming a request that is not
    open (its ids, as the bot was told), so the record says that rather than "no reply"."""
    heard: bool = True
    """For a request with no reply: whether anything at all came on the stream meanwhile (nothing:
    a program that wrote its reply without flushing it looks exactly so)."""


@dataclass
class _Open:
    match_id: str
    future: asyncio.Future[tuple[arena_pb2.ActionReply | None, float]]
    sent_at: float
    """When the referee queued the request (loop time)."""
    lag_at_send: float = 0.0
    """The loop's lag reading then."""
    out_at: float | None = None
    """When the stream took the request to send it (None until it has)."""
    stray: str = ""
    """The first reply, while this request was open, that named a request not open (``Answer.stray``)."""


def _settle(future: asyncio.Future[tuple[arena_pb2.ActionReply | None, float]], reply: Any) -> None:
    """End a request's wait with its reply (None: timed out or closed), stamped with the time."""
    if not future.done():
        future.set_result((reply, future.get_loop().time()))


@dataclass(eq=False)  # sessions are compared and hashed by identity (they live in sets)
class BotSession:
    identity: Identity
    games: tuple[str, ...]
    capacity: int
    session_id: str = field(default_factory=lambda: secrets.token_hex(6))
    outbox: asyncio.Queue[arena_pb2.ServerMessage | None] = field(default_factory=asyncio.Queue)
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    matches: set[str] = field(default_factory=set)
    _open: dict[int, _Open] = field(default_factory=dict)
    _closed_ids: OrderedDict[int, bool] = field(default_factory=OrderedDict)
    """Request ids no longer open, oldest first: True if answered, False if the wait ran out (a
    reply to one of those is late, not unsolicited)."""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _unsolicited: int = 0
    lag: LoopLag | None = None
    """The server loop's lag meter, to leave the server's own delays out of a bot's time."""
    fault: str = ""
    """Why the server closed the stream for breaking the protocol (flooding, an undecodable
    message); empty if it did not."""
    fault_code: arena_pb2.ErrorCode = arena_pb2.ERROR_CODE_UNSPECIFIED
    """The error the bot was sent for that fault (``FLOODING``, ``MALFORMED_REPLY``)."""
    _ended: bool = False
    """Whether the outbox holds its end: nothing more is sent."""
    draining: bool = False
    """The stream is leaving: it plays out its matches and is offered no new one (``drain``)."""
    _farewell: tuple[arena_pb2.ErrorCode, str] | None = None
    heard: int = 0
    """How many messages have come on the stream (to tell whether any came during a request)."""
    follows_moves: bool = False
    """A person's seat (the Play stream): the referee sends it its observation after every
    decision of its matches (``SeatUpdate``), so the other seats' moves show as they happen."""
    ended_by_server: str = ""
    """Why the server ended a stream that did nothing wrong (its bot was disabled, its token
    rotated, the server is stopping): the matches it was in are not the bot's to lose."""
    acknowledges_match_end: bool = False
    """The hello promised a ``MatchEndSeen`` for every ``MatchEnd`` (``match_end_seen``)."""
    _ends_unseen: dict[str, asyncio.Future[None]] = field(default_factory=dict)
    """The matches whose end was sent and not yet acknowledged, by id (``acknowledges_match_end``)."""
    _last_end: tuple[str, bool] = ("", True)
    """The last match end sent, and whether no ``MatchEndSeen`` is owed for it (``LAST_WORD_WAIT_S``)."""

    @property
    def bot(self) -> str:
        return self.identity.bot

    def plays(self, game: str) -> bool:
        """Whether the hello offered this game (an empty list offers every game)."""
        return not self.games or game in self.games

    @property
    def takes_matches(self) -> bool:
        """Open and not leaving (no ``Goodbye``, not suspended meanwhile): may be offered a match."""
        return not self.closed.is_set() and not self.draining

    @property
    def has_room(self) -> bool:
        """Takes matches, and plays fewer than the hello's ``max_concurrent_matches``."""
        return self.takes_matches and len(self.matches) < self.capacity

    def drain(self, code: arena_pb2.ErrorCode = arena_pb2.ERROR_CODE_UNSPECIFIED, why: str = "") -> None:
        """Offer no new match; end the stream (OK) once its matches are over and their last end is
        acknowledged, if promised: the bot said ``Goodbye``, or (``why``, sent first) was suspended."""
        self.draining = True
        if why and not self._farewell:
            self._farewell = (code, why)
        if not self.matches:
            self._leave()

    def _leave(self) -> None:
        if self._farewell:
            self.error(*self._farewell)
        self._end()

    def sending(self, message: arena_pb2.ServerMessage) -> None:
        """The stream is sending ``message`` now: a request's time starts here, not when it was
        queued (the loop may have been late to get to it)."""
        if message.WhichOneof("message") == "action_request":
            pending = self._open.get(message.action_request.request_id)
            if pending is not None and pending.out_at is None:
                pending.out_at = pending.future.get_loop().time()

    def servers_share(self, pending: _Open, now: float) -> float:
        """The seconds of ``now - sent_at`` that were the server's, not the bot's: until the stream
        took the request, and then the loop's stall that a reply may be waiting through now (not
        every stall since: see ``REPLY_STALL_S``). A request the stream has not taken yet (the
        bot does not read its stream) counts from its queueing, less all the loop's lag since."""
        if pending.out_at is None:
            lag = self.lag.reading(now) - pending.lag_at_send if self.lag is not None else 0.0
            return min(lag, now - pending.sent_at)
        stall = self.lag.since(now - REPLY_STALL_S, now) if self.lag is not None else 0.0
        return (pending.out_at - pending.sent_at) + min(stall, now - pending.out_at)

    def send(self, message: arena_pb2.ServerMessage) -> None:
        if not self._ended:
            if message.WhichOneof("message") == "match_end":
                match_id = message.match_end.match_id
                self._last_end = (match_id, not self.acknowledges_match_end)
                if self.waits_for_ends:
                    self._ends_unseen.setdefault(match_id, asyncio.get_running_loop().create_future())
            self.outbox.put_nowait(message)

    async def match_end_seen(self, match_id: str, timeout: float) -> bool:
        """Wait until the bot says it has handled the end of ``match_id`` (``MatchEndSeen``), at
        most ``timeout`` seconds, or until the stream closes: whether it said so. False at once
        for a bot that does not acknowledge ends, or a match whose end was not sent."""
        future = self._ends_unseen.get(match_id)
        if future is None:
            return False
        try:
            await asyncio.wait({future}, timeout=timeout)
        finally:
            self._ends_unseen.pop(match_id, None)
        return future.done() and not future.cancelled()

    @property
    def waits_for_ends(self) -> bool:
        """Whether the server waits for this stream's ``MatchEndSeen``: only a bot it launched
        (whose stderr it keeps) and that promised them; any other's are ignored."""
        return self.acknowledges_match_end and self.identity.launch_key is not None

    def _on_end_seen(self, match_id: str) -> None:
        # One nobody waits for (a remote bot's, a late one, a second one) is ignored: it asks for
        # nothing, so it is not a message nobody asked for.
        future = self._ends_unseen.get(match_id)
        if future is not None and not future.done():
            future.set_result(None)
        if self._last_end[0] == match_id:
            self._last_end = (match_id, True)
            if self.draining and not self.matches:  # its last word: the stream may end now
                self._leave()

    def error(self, code: arena_pb2.ErrorCode, text: str, match_id: str = "", request_id: int = 0) -> None:
        error = arena_pb2.Error(code=code, message=text, match_id=match_id, request_id=request_id)
        self.send(arena_pb2.ServerMessage(error=error))

    async def ask(
        self,
        request: arena_pb2.ActionRequest,
        wait_seconds: float,
        waits: CpuWaits | None = None,
        message: arena_pb2.ServerMessage | None = None,
    ) -> Answer:
        """Send a request and wait for its reply, at most ``wait_seconds`` of the bot's own time:
        the server's share (``servers_share``) and, where ``waits`` can see the bot's processes,
        the time the machine kept them waiting for a CPU extend the wait. ``message``, if given, is the
        ``ServerMessage`` that holds ``request`` already (sent as it is, not copied). One future per
        request, settled by the reply, a timer or the stream closing (``close``); no task per request."""
        loop = asyncio.get_running_loop()
        request.request_id = next(self._ids)
        future: asyncio.Future[tuple[arena_pb2.ActionReply | None, float]] = loop.create_future()
        sent_at = loop.time()
        lag_at_send = self.lag.hold(sent_at) if self.lag is not None else 0.0  # released once settled
        heard_before = self.heard
        pending = _Open(request.match_id, future, sent_at, lag_at_send)
        self._open[request.request_id] = pending
        timer = loop.call_at(sent_at + wait_seconds, self._expire, pending, wait_seconds, waits)
        self.send(message if message is not None else arena_pb2.ServerMessage(action_request=request))
        if self.closed.is_set():
            _settle(future, None)
        try:
            reply, settled_at = await future
        finally:
            timer.cancel()  # the first timer; one re-armed by _expire finds the future done
            self._forget(request.request_id, answered=False)  # a reply has forgotten it already
            if self.lag is not None:
                self.lag.release()
        elapsed = (settled_at - sent_at) * 1000
        lag = self.servers_share(pending, settled_at) * 1000
        starved = 0.0
        if waits is not None and elapsed - lag > wait_seconds * 500:  # only for a slow reply
            starved = min(waits.waited_since_request(), wait_seconds) * 1000
        starved = min(starved, elapsed - lag)
        if reply is not None:
            return Answer(reply, elapsed, server_lag_ms=lag, waited_ms=starved)
        return Answer(
            None,
            elapsed,
            closed=self.closed.is_set(),
            server_lag_ms=lag,
            waited_ms=starved,
            stray=pending.stray,
            heard=self.heard > heard_before,
        )

    def _expire(self, pending: _Open, wait_seconds: float, waits: CpuWaits | None = None) -> None:
        """The wait is over by the wall clock; but if part of it was the server's (the request
        not yet sent, a reply stuck in a stalled loop), or the machine kept the bot waiting for a
        CPU, the bot has had less than ``wait_seconds`` of its own, so wait for the rest."""
        future = pending.future
        if future.done():
            return
        loop = future.get_loop()
        now = loop.time()
        own = (now - pending.sent_at) - self.servers_share(pending, now)
        more = more_to_wait(wait_seconds, own, waits)
        if more is None:
            _settle(future, None)
        else:
            loop.call_later(more, self._expire, pending, wait_seconds, waits)

    def on_message(self, message: arena_pb2.BotMessage) -> None:
        """Route one message from the bot; protocol faults answer with an error."""
        if self.closed.is_set():  # closed for a fault: nothing it says counts any more
            return
        self.heard += 1
        kind = message.WhichOneof("message")
        if kind == "reply":
            self._on_reply(message.reply)
        elif kind == "goodbye":
            self.drain()
        elif kind == "match_end_seen":
            self._on_end_seen(message.match_end_seen.match_id)
        elif kind == "hello":
            self._unsolicited_message(arena_pb2.ERROR_CODE_BAD_HELLO, "this stream already said hello")
        else:
            self._unsolicited_message(arena_pb2.ERROR_CODE_MALFORMED_REPLY, "the message is empty")

    def close(self, fault: str = "", code: arena_pb2.ErrorCode = arena_pb2.ERROR_CODE_UNSPECIFIED) -> None:
        """Take nothing more from the stream; ``fault`` says how the bot broke the protocol, if it
        did, and ``code`` the error it was sent. A stream closed for a fault stays open for the
        matches it is in, until each has sent its ``match_end`` (``end_match``); any other ends now."""
        if fault and not self.fault:
            self.fault, self.fault_code = fault, code
        if not self.closed.is_set():
            self.closed.set()
            for pending in list(self._open.values()):
                _settle(pending.future, None)
            for future in self._ends_unseen.values():  # nothing more will come: stop waiting
                if not future.done():
                    future.cancel()
        if not (self.fault and self.matches):
            self._end()

    def finish(self) -> None:
        """End the stream now, whatever matches it is in."""
        self.close()
        self._end()

    def end_match(self, match_id: str) -> None:
        """The match is over for this stream (its ``match_end`` sent, or it never started): the
        last one ends a stream closed for a fault."""
        self.matches.discard(match_id)
        self._unsolicited = 0  # counted per match: what it did before is not held against it
        if self.closed.is_set() and not self.matches:
            self._end()
        elif self.draining and not self.matches:
            if self._last_end == (match_id, False):  # its MatchEndSeen is owed: end once it comes
                asyncio.get_running_loop().call_later(LAST_WORD_WAIT_S, self._leave)
            else:
                self._leave()

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self.outbox.put_nowait(None)

    def _on_reply(self, reply: arena_pb2.ActionReply) -> None:
        pending = self._open.get(reply.request_id)
        answered = self._closed_ids.get(reply.request_id) if pending is None else None
        if pending is not None and pending.match_id == reply.match_id:
            _settle(pending.future, reply)
            self._forget(reply.request_id, answered=True)
        elif answered is False:
            # The reply to a request whose wait ran out: the referee struck that decision already.
            # It is a late reply, not a message nobody asked for, and is not counted as flooding.
            self._closed_ids[reply.request_id] = True  # a second reply to it is one nobody asked for
            text = f"the reply to request {reply.request_id} came after its deadline; ignored"
            self.error(arena_pb2.ERROR_CODE_LATE_REPLY, text, reply.match_id, reply.request_id)
        elif answered:
            text = f"request {reply.request_id} was already answered; a second reply is ignored"
            self._unsolicited_message(arena_pb2.ERROR_CODE_LATE_REPLY, text, reply)
        else:
            text = f"request {reply.request_id} of match {reply.match_id!r} is not open on this stream"
            self._note_stray(reply.match_id, f"request {reply.request_id} of match {reply.match_id!r}")
            self._unsolicited_message(arena_pb2.ERROR_CODE_UNKNOWN_REQUEST, text, reply)

    def _note_stray(self, match_id: str, text: str) -> None:
        """Keep a reply to a request not open with the open requests it may have meant to answer:
        those of the match it names, or, naming none open, every open one."""
        meant = [pending for pending in self._open.values() if pending.match_id == match_id]
        for pending in meant or self._open.values():
            pending.stray = pending.stray or text

    def _unsolicited_message(self, code: arena_pb2.ErrorCode, text: str, reply: Any = None) -> None:
        self._unsolicited += 1
        if reply is not None:
            self.error(code, text, reply.match_id, reply.request_id)
        else:
            self.error(code, text)
        if self._unsolicited > UNSOLICITED_LIMIT:
            text = f"more than {UNSOLICITED_LIMIT} messages nobody asked for; closing the stream"
            self.error(arena_pb2.ERROR_CODE_FLOODING, text)
            self.close(fault=text, code=arena_pb2.ERROR_CODE_FLOODING)

    def _forget(self, request_id: int, answered: bool) -> None:
        if self._open.pop(request_id, None) is not None:
            self._closed_ids[request_id] = answered
            while len(self._closed_ids) > REMEMBERED_REQUESTS:
                self._closed_ids.popitem(last=False)


Authenticator = Callable[[str], Awaitable[Identity | None]]


class SessionPool:
    """Admits streams by token and hands sessions to whoever waits for them."""

    def __init__(self, authenticate: Authenticator | None = None, lag: LoopLag | None = None) -> None:
        self._authenticate = authenticate
        self.lag = lag
        self._launched: dict[str, tuple[Identity, asyncio.Future[BotSession]]] = {}
        self.sessions: set[BotSession] = set()
        self._watchers: list[asyncio.Future[None]] = []

    def notify(self) -> None:
        """A session came, went, or finished a match: wake everyone waiting for a free bot."""
        watchers, self._watchers = self._watchers, []
        for watcher in watchers:
            if not watcher.done():
                watcher.set_result(None)

    async def wait_for_change(self, timeout: float) -> None:
        """Return at the next ``notify`` or after ``timeout`` seconds, whichever comes first."""
        watcher: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._watchers.append(watcher)
        try:
            await asyncio.wait_for(watcher, max(0.0, timeout))
        except TimeoutError:
            pass
        finally:
            if watcher in self._watchers:
                self._watchers.remove(watcher)

    def expect(self, token: str, identity: Identity) -> asyncio.Future[BotSession]:
        """A bot the server launched will connect with this one-time ``token``."""
        future: asyncio.Future[BotSession] = asyncio.get_running_loop().create_future()
        self._launched[token] = (identity, future)
        return future

    def forget(self, token: str) -> None:
        self._launched.pop(token, None)

    async def identify(self, token: str) -> Identity | None:
        launched = self._launched.get(token)
        if launched is not None and not launched[1].done():
            return launched[0]
        if self._authenticate is not None and token:
            return await self._authenticate(token)
        return None

    def admit(self, session: BotSession) -> None:
        session.lag = self.lag
        self.sessions.add(session)
        key = session.identity.launch_key
        launched = self._launched.get(key) if key is not None else None
        if launched is not None and not launched[1].done():
            launched[1].set_result(session)
        self.notify()

    def sessions_of(self, bot_id: int | None) -> list[BotSession]:
        """This bot's open streams (a list: a caller may end them as it goes)."""
        # (over a copy, made at once: the Admin lane's thread reads it while the loop changes it)
        return [session for session in list(self.sessions) if session.identity.bot_id == bot_id]

    def remove(self, session: BotSession) -> None:
        self.sessions.discard(session)
        session.finish()
        self.notify()

    def end(self, session: BotSession, code: arena_pb2.ErrorCode, reason: str) -> None:
        """Close a stream for the server's own reasons, telling the bot why first; its seats in
        running matches end ABORTED (the match is void), not as the bot's fault."""
        session.ended_by_server = session.ended_by_server or reason
        session.error(code, reason)
        self.remove(session)
