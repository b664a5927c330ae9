"""A league's live board, "league TV" (``/api/leagues/NAME/live``, the page ``/leagues/NAME/watch``):
one of the league's running matches, live, and when it ends another, on the same connection.

Which match: the one that has been running longest (earliest start, then lowest id) among those
the live secrecy verdict shows (``ladder.secrecy.live_verdict``); every follower of the league
sees the same one. A league's followers cost per league, not per follower: one ``LeagueBoard``
reads what runs for all of them (a read when the match shown ends, and at most one a second while
nothing is shown), and the match's frames come from its channel (``live_channels``): the same
channel, and the same encoded bytes, as the match's own watchers'. Events, each one line of JSON:

- ``match``: ``{"match_id", "game", "bots", "url"}``, the match now shown, before its frames;
- ``frame`` and ``note``: as the match's own stream sends them (``live_feed``), the league's
  ``live_delay_s`` holding each frame back as there;
- ``end``: ``{"match_id", "status"}``, the match shown is over (another follows);
- ``hidden``: ``{"match_id", "text"}``, a running match the league will not show (another match
  shares its seed and is not over): it picks another, and never shows this one;
- ``idle``: ``{"text"}``, nothing that may show is running: the stream waits for a match;
- ``finished``: ``{}``, the league has finished; the stream ends.

Only ``serve --web`` has a live hub: ``kingmaker web`` alone says so (``note``) and names each
match (``match``, ``end``) without its frames.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, NamedTuple

from sqlmodel import col, select
from starlette.types import ASGIApp, Receive, Scope, Send

from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.secrecy import live_verdict
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import League, Match, MatchStatus
from kingmaker.server.web.live_channels import LiveWatch
from kingmaker.server.web.live_feed import (
    HEARTBEAT_S,
    Outcome,
    channel_frames,
    event,
    joined,
    read_match_facts,
    send_events,
    until_over,
)

READ_S = 1.0
"""While nothing is shown, what runs is read again at most this often (once for all followers)."""
KEPT = 1_024
"""Matches remembered as over or hidden, per league."""
STANDALONE = (
    "this site reads the database only (kingmaker web): the league's running matches are named "
    "here, and their boards show on the site that `kingmaker serve --web` serves"
)
IDLE = "no match of this league that may be shown is being played: the next one shows when it starts"
LEAGUE_LIVE_PATH = re.compile(r"/api/leagues/([^/]+)/live")


class Pick(NamedTuple):
    """What a league's followers are shown: the match, or none; the running matches hidden."""

    finished: bool
    match_id: int | None
    hidden: tuple[tuple[int, str], ...]


class LeagueBoard:
    """One league's followers' shared reading of what it plays, and which match they see."""

    def __init__(self, db: Database, league_id: int) -> None:
        self.db = db
        self.league_id = league_id
        self.pick: Pick | None = None
        self.reads = 0
        self._read_at = float("-inf")
        self._reading: asyncio.Future[Pick] | None = None
        self._gone: OrderedDict[int, None] = OrderedDict()
        """Matches a follower saw end or hide: never picked again."""
        self._hidden: OrderedDict[int, str] = OrderedDict()

    def gone(self, match_id: int, hidden: str | None = None) -> None:
        """A follower saw ``match_id`` end (or hide, ``hidden`` saying why): on to another."""
        self._gone[match_id] = None
        if hidden is not None:
            self._hidden[match_id] = hidden
        for kept in (self._gone, self._hidden):
            while len(kept) > KEPT:
                kept.popitem(last=False)

    def age(self) -> float:
        return time.monotonic() - self._read_at

    async def current(self) -> Pick:
        """The match to show: the last reading's, unless it is older than ``READ_S`` or its match
        is gone; then one reading (in a worker thread) for all the followers asking."""
        while True:
            pick = self.pick
            if pick is not None and self.age() < READ_S and pick.match_id not in self._gone:
                return pick
            reading = self._reading
            if reading is None:
                self._read_at = time.monotonic()
                self.reads += 1
                gone, hidden = frozenset(self._gone), dict(self._hidden)
                reading = asyncio.ensure_future(
                    asyncio.to_thread(read_pick, self.db, self.league_id, gone, hidden)
                )
                self._reading = reading
            try:
                await asyncio.shield(reading)
            finally:  # the first follower back takes the reading in (a done one is not waited for)
                if self._reading is reading and reading.done():
                    self._take(reading)

    def _take(self, reading: asyncio.Future[Pick]) -> None:
        self._reading = None
        if reading.cancelled() or reading.exception() is not None:
            self._read_at = float("-inf")  # the next follower asking reads again
            return
        self.pick = reading.result()
        for match_id, text in self.pick.hidden:
            self._hidden[match_id] = text


class LeagueBoards:
    """Every followed league's board, by name (read once, the first time)."""

    def __init__(self, watch: LiveWatch) -> None:
        self.watch = watch
        self.boards: dict[str, LeagueBoard] = {}
        self._reading: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def board(self, name: str) -> LeagueBoard:
        """The league's board (``NotFoundError``); a crowd arriving at once waits for one read."""
        found = self.boards.get(name)
        if found is not None:
            return found
        reading = self._reading.get(name)
        if reading is None:
            reading = asyncio.ensure_future(asyncio.to_thread(league_facts, self.watch.db, name))
            self._reading[name] = reading
            reading.add_done_callback(lambda _: self._reading.pop(name, None))
        league_id = (await asyncio.shield(reading))["league_id"]
        return self.boards.setdefault(name, LeagueBoard(self.watch.db, league_id))


async def league_follow(boards: LeagueBoards, name: str) -> AsyncGenerator[str | bytes, None]:
    """The events of a stream following league ``name`` (``NotFoundError`` if there is none)."""
    return _follow(boards.watch, await boards.board(name))


def league_door(site: ASGIApp, boards: LeagueBoards) -> ASGIApp:
    """``site``, with the league streams sent straight to the server, as ``live_feed.crowd_door``
    sends a match's; an unknown league goes to ``site``, which answers 404."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            found = LEAGUE_LIVE_PATH.fullmatch(scope["path"])
            if found is not None:
                try:
                    events = await league_follow(boards, found[1])
                except NotFoundError:
                    pass  # the site says so
                else:
                    await send_events(events, receive, send)
                    return
        await site(scope, receive, send)

    return app


async def _follow(watch: LiveWatch, board: LeagueBoard) -> AsyncGenerator[str | bytes, None]:
    told: set[int] = set()  # the hidden matches this follower was told of
    said: set[str] = set()  # the notes it was given
    idle = False
    beat = time.monotonic()
    if watch.live is None:
        yield event("note", {"text": STANDALONE})
    while True:
        pick = await board.current()
        for match_id, text in pick.hidden:
            if match_id not in told:
                told.add(match_id)
                yield event("hidden", {"match_id": match_id, "text": text})
        if pick.finished:
            yield event("finished", {})
            return
        if pick.match_id is None:
            if not idle:
                idle, beat = True, time.monotonic()
                yield event("idle", {"text": IDLE})
            elif time.monotonic() - beat >= HEARTBEAT_S:
                beat = time.monotonic()
                yield ": still watching\n\n"
            await asyncio.sleep(max(READ_S - board.age(), 0.05))  # then the next reading, shared
            continue
        idle = False
        told.add(pick.match_id)  # hidden later, it is told at its end
        async for line in _show(watch, board, pick.match_id, said):
            yield line
        beat = time.monotonic()


async def _show(
    watch: LiveWatch, board: LeagueBoard, match_id: int, said: set[str]
) -> AsyncIterator[str | bytes]:
    """One match, from its ``match`` event to its ``end``; of a hidden one only ``hidden``, and
    nothing of one over already. Then the board is told it is gone, and picks again."""
    try:
        facts = await read_match_facts(watch, match_id)
    except NotFoundError:
        board.gone(match_id)
        return
    named = {
        "match_id": match_id,
        "game": facts["game"],
        "bots": facts["bots"],
        "url": f"/matches/{match_id}",
    }
    outcome = Outcome()
    shown = False
    if watch.live is None:
        status, verdict = await watch.checks(match_id)
        if status != MatchStatus.RUNNING:
            outcome.data = {"status": status}
        elif not verdict.shown:
            outcome.kind, outcome.data = "hidden", {"text": verdict.reason}
        else:
            shown = True
            yield event("match", named)
            async for line in until_over(watch, match_id, float("inf"), outcome):
                yield line
    else:
        async with joined(watch, match_id, facts) as channel:
            if channel.status == MatchStatus.RUNNING and channel.verdict.shown:
                shown = True
                yield event("match", named)
                if channel.delay and "delay" not in said:
                    said.add("delay")
                    late = f"this league shows its matches {channel.delay:g} s late: the board follows"
                    yield event("note", {"text": late})
            async for sent in channel_frames(watch, channel, outcome):
                yield sent
    board.gone(match_id, outcome.data["text"] if outcome.kind == "hidden" else None)
    if shown or outcome.kind == "hidden":
        yield event(outcome.kind, {"match_id": match_id, **outcome.data})


def league_facts(db: Database, name: str) -> dict[str, Any]:
    """The league's id, game and whether it has finished (``NotFoundError`` if there is none)."""
    with db.read() as session:
        league = session.exec(select(League).where(League.name == name)).first()
        if league is None:
            raise NotFoundError(f"no league named {name!r}")
        return {
            "league_id": league.id,
            "league": league.name,
            "game": league.game,
            "finished": league.finished,
        }


def read_pick(db: Database, league_id: int, gone: frozenset[int], hidden: dict[int, str]) -> Pick:
    """The league's running matches, longest running first, and the first that may be shown
    (not ``gone``, not ``hidden``, its verdict read): one indexed read, and one verdict for each
    running match not known to be hidden until one shows."""
    with db.read() as session:
        league = session.get(League, league_id)
        if league is None:
            return Pick(True, None, ())
        finished = league.finished
        running = session.exec(
            select(Match.id)
            .where(Match.league_id == league_id, Match.status == MatchStatus.RUNNING)
            .order_by(col(Match.started_at), col(Match.id))
        ).all()
    found: list[tuple[int, str]] = []
    for match_id in running:
        assert match_id is not None
        if match_id in gone and match_id not in hidden:
            continue
        text = hidden.get(match_id)
        if text is None:
            verdict = live_verdict(db, match_id)
            if verdict.shown:
                return Pick(False, match_id, tuple(found))
            text = verdict.reason
        found.append((match_id, text))
    return Pick(finished, None, tuple(found))
