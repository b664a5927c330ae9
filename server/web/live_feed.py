"""Server-sent events for the pages that follow a running league or match (no polling, no script
library: the browser's ``EventSource``).

``/api/matches/ID/live``: a running match as a spectator may see it, from the server's live hub
(``server/live.py``; only ``serve --web`` has one: ``kingmaker web`` alone reads the database and
says so). Events, each one line of JSON:

- ``frame``: ``{"step", "to_act", "acted", "over", "bots", "scores", "score_name", "view"}``, the
  spectator view (``Game.spectate``), which the page draws (``static/boards.js``, the rules of
  ``boards``), ``delay_s`` seconds after the move, at most ``live_channels.MAX_FRAMES_PER_S`` a
  second (a frame that is due replaces older ones not yet sent); encoded once, and the same bytes
  sent to every watcher of the match (``live_channels``);
- ``note``: ``{"text"}``, why nothing shows yet (the delay, a site without a live feed);
- ``hidden``: ``{"text"}``, nothing of this match may show (``ladder.secrecy.live_verdict``: another
  match shares its seed and is not over); the stream ends;
- ``end``: ``{"status"}``, the match is no longer running; the stream ends.

``/leagues/NAME/events``: ``update`` with the league's live fragment (HTML, as a JSON string) each
time its matches change, and ``finished`` once the league is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func
from sqlmodel import col, select
from starlette.responses import StreamingResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from kingmaker.games.registry import game_names, get_game
from kingmaker.ladder.bots.persons import is_person
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot, League, Match, MatchSeat, MatchStatus
from kingmaker.server.live import LiveFrame
from kingmaker.server.web.live_channels import STATUS_S, LiveWatch, MatchChannel
from kingmaker.server.web.scores import running_scores

HEARTBEAT_S = 10.0
"""A comment line this often keeps proxies from closing a quiet stream."""
STANDALONE = (
    "this site reads the database only (kingmaker web): a running match's board shows on the site "
    "that `kingmaker serve --web` serves; here its replay shows once it is over"
)
END_WAIT_S = 60.0
"""How long a stream waits, after the last move, for the match's result to be stored."""


LIVE_PATH = re.compile(r"/api/matches/([1-9][0-9]{0,17})/live")
"""A live stream's address (an id out of range goes to the site's route, which answers 400)."""
EVENT_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),
]
"""As ``stream`` sends them."""


def event(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def stream(events: AsyncIterator[str] | AsyncIterator[str | bytes]) -> StreamingResponse:
    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(events, media_type="text/event-stream", headers=headers)


async def match_stream(watch: LiveWatch, match_id: int) -> StreamingResponse:
    """The live board of running match ``match_id`` (``NotFoundError`` if there is no such match),
    shared with every other watcher of it (``live_channels``). A match whose facts were read
    (one watched now, or lately) is answered from memory, and so is one known to be over."""
    return stream(await match_events(watch, match_id))


async def match_events(watch: LiveWatch, match_id: int) -> AsyncGenerator[str | bytes, None]:
    """The events of a stream of ``match_id``, read if need be (``NotFoundError``)."""
    events = from_memory(watch, match_id)
    if events is None:
        events = _match_events(watch, match_id, await read_match_facts(watch, match_id))
    return events


async def read_match_facts(watch: LiveWatch, match_id: int) -> dict[str, Any]:
    """What does not change while the match runs: game, bots, delay (``NotFoundError``), read
    once for all its watchers."""
    return await watch.read_facts(match_id, lambda: _match_facts(watch.db, match_id, watch.people_delay_s))


def from_memory(watch: LiveWatch, match_id: int) -> AsyncGenerator[str | bytes, None] | None:
    """The events of a stream of ``match_id`` if no read is needed for them (a match watched now
    or lately, or known to be over), else None."""
    over = watch.over(match_id)
    if over is not None:
        return _said(event("end", {"status": over}))
    facts = watch.known_facts(match_id)
    return None if facts is None else _match_events(watch, match_id, facts)


def crowd_door(site: ASGIApp, watch: LiveWatch) -> ASGIApp:
    """``site``, with the live streams sent straight to the server (uvicorn), past Starlette's
    routing, middleware and ``StreamingResponse``: a crowd of spectators opens hundreds of them a
    second, each sending a few frames, and those layers were much of each stream's cost. Anything
    else (a bad id, no such match, another method or address) goes to ``site``, which answers it."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            found = LIVE_PATH.fullmatch(scope["path"])
            if found is not None:
                try:
                    events = await match_events(watch, int(found[1]))
                except NotFoundError:
                    pass  # the site says so, as for any other address
                else:
                    await send_events(events, receive, send)
                    return
        await site(scope, receive, send)

    return app


async def send_events(events: AsyncGenerator[str | bytes, None], receive: Receive, send: Send) -> None:
    """Send ``events`` as a server-sent event stream, stopping them (their ``finally``: the
    watcher leaves its channel) when the client goes away."""
    task = asyncio.current_task()
    assert task is not None
    state = {"finished": False, "gone": False}

    async def listen() -> None:  # the one task a stream has besides its own
        while (await receive())["type"] != "http.disconnect":
            pass
        if not state["finished"]:
            state["gone"] = True
            task.cancel()  # it waits in an await: there it stops

    listener = asyncio.get_running_loop().create_task(listen())
    try:
        await send({"type": "http.response.start", "status": 200, "headers": EVENT_HEADERS})
        async for chunk in events:
            body = chunk if isinstance(chunk, bytes) else chunk.encode()
            await send({"type": "http.response.body", "body": body, "more_body": True})
        state["finished"] = True
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except asyncio.CancelledError:
        if not state["gone"]:
            raise
        task.uncancel()
    finally:
        state["finished"] = True
        listener.cancel()
        await events.aclose()  # its ``finally`` now, if a send failed on the way


async def _match_events(
    watch: LiveWatch, match_id: int, facts: dict[str, Any]
) -> AsyncGenerator[str | bytes, None]:
    if watch.live is None:
        status, verdict = await watch.checks(match_id)
        if status != MatchStatus.RUNNING:
            yield event("end", {"status": status})
        elif not verdict.shown:
            yield event("hidden", {"text": verdict.reason})
        else:
            yield event("note", {"text": STANDALONE})
            outcome = Outcome()
            async for line in until_over(watch, match_id, float("inf"), outcome):
                yield line
            yield event(outcome.kind, outcome.data)
        return
    async with joined(watch, match_id, facts) as channel:
        delay = channel.delay
        if delay and channel.status == MatchStatus.RUNNING:
            shown = "a match with a person is shown" if facts["people"] else "this league shows its matches"
            late = f"{shown} {delay:g} s late: the board follows"
            yield event("note", {"text": late})
        outcome = Outcome()
        async for sent in channel_frames(watch, channel, outcome):
            yield sent
        yield event(outcome.kind, outcome.data)


@contextlib.asynccontextmanager
async def joined(watch: LiveWatch, match_id: int, facts: dict[str, Any]) -> AsyncIterator[MatchChannel]:
    """The match's channel (``facts``: ``read_facts``'s), shared with all its watchers, left at the end."""
    channel = await watch.join(match_id, _encoder(facts), facts["delay_s"])
    try:
        yield channel
    finally:
        watch.leave(channel)


@dataclass
class Outcome:
    """How a match's frames ended, for the stream to say: ``end`` ``{"status"}`` or ``hidden``
    ``{"text"}``."""

    kind: str = "end"
    data: dict[str, Any] = field(default_factory=dict)


async def channel_frames(
    watch: LiveWatch, channel: MatchChannel, outcome: Outcome
) -> AsyncIterator[str | bytes]:
    """The frames of a joined channel, the same bytes for every stream, and heartbeats, until
    the match is over (its result stored) or hidden: ``outcome`` then says which."""
    if channel.status != MatchStatus.RUNNING:
        outcome.kind, outcome.data = "end", {"status": channel.status}
        return
    beat = time.monotonic()
    sent = -1
    while True:
        latest = channel.latest
        if latest is not None and latest.step > sent:  # the same bytes for every stream
            yield latest.data
            sent, beat = latest.step, time.monotonic()
            if latest.over:
                async for line in until_over(watch, channel.match_id, END_WAIT_S, outcome):
                    yield line
                return
            continue
        if channel.status != MatchStatus.RUNNING and not channel.pending(sent):
            outcome.kind, outcome.data = "end", {"status": channel.status}
            return
        if channel.status == MatchStatus.RUNNING and not channel.verdict.shown:
            outcome.kind, outcome.data = "hidden", {"text": channel.verdict.reason}
            return
        await channel.wait()
        if time.monotonic() - beat >= HEARTBEAT_S:
            beat = time.monotonic()
            yield ": still watching\n\n"


async def _said(line: str) -> AsyncGenerator[str, None]:
    yield line


async def until_over(
    watch: LiveWatch, match_id: int, patience: float, outcome: Outcome
) -> AsyncIterator[str]:
    """Wait for the match to stop running (its result stored); ``outcome`` then holds its status."""
    deadline = time.monotonic() + patience
    beat = time.monotonic()
    while True:
        status = await watch.status(match_id)
        if status != MatchStatus.RUNNING or time.monotonic() > deadline:
            outcome.kind, outcome.data = "end", {"status": status}
            return
        await asyncio.sleep(STATUS_S)
        if time.monotonic() - beat >= HEARTBEAT_S:
            beat = time.monotonic()
            yield ": still watching\n\n"


def _encoder(facts: dict[str, Any]) -> Callable[[LiveFrame], bytes]:
    """A frame's event as the bytes every stream of the match sends: the spectator view, which
    the browser draws (``static/boards.js``), and the scores read from it."""
    bots, game, score_name = tuple(facts["bots"]), facts["game"], facts["score_name"]

    def encode(frame: LiveFrame) -> bytes:
        return event(
            "frame",
            {
                "step": frame.step,
                "to_act": list(frame.to_act),
                "acted": list(frame.acted),
                "over": frame.over,
                "bots": list(bots),
                "scores": list(running_scores(game, frame.view)),
                "score_name": score_name,
                "view": frame.view,
            },
        ).encode()

    return encode


def _match_facts(db: Database, match_id: int, people_delay_s: float) -> dict[str, Any]:
    with db.read() as session:
        match = session.get(Match, match_id)
        if match is None:
            raise NotFoundError(f"no match {match_id}")
        bots = session.exec(
            select(Bot.name)
            .join(MatchSeat, col(MatchSeat.bot_id) == col(Bot.id))
            .where(MatchSeat.match_id == match_id)
            .order_by(col(MatchSeat.seat))
        ).all()
        league = session.get(League, match.league_id) if match.league_id is not None else None
        delay = float(league.settings.get("live_delay_s") or 0) if league is not None else 0.0
        people = any(is_person(bot) for bot in bots)
        if people:  # a person's table: the site's delay for people
            delay = max(delay, people_delay_s)
        game = match.game
        return {
            "status": match.status,
            "game": game,
            "bots": list(bots),
            "delay_s": delay,
            "people": people,
            "score_name": get_game(game).spec.score_name if game in game_names() else "score",
        }


def league_stream(db: Database, name: str, render: Callable[[], str]) -> StreamingResponse:
    """``update`` with ``render()`` (the league's live fragment) whenever the league's matches
    change, checked every second with one indexed read; ``finished`` once it is."""
    league_id = _league_id(db, name)
    return stream(_league_events(db, league_id, render))


async def _league_events(db: Database, league_id: int, render: Callable[[], str]) -> AsyncIterator[str]:
    seen: tuple[Any, ...] | None = None
    beat = time.monotonic()
    while True:
        state = await asyncio.to_thread(_league_state, db, league_id)
        if state != seen:
            seen = state
            yield event("update", await asyncio.to_thread(render))
            beat = time.monotonic()
            if state[0]:
                yield event("finished", {})
                return
        elif time.monotonic() - beat >= HEARTBEAT_S:
            beat = time.monotonic()
            yield ": still watching\n\n"
        await asyncio.sleep(1.0)


def _league_id(db: Database, name: str) -> int:
    with db.read() as session:
        league_id = session.exec(select(League.id).where(League.name == name)).first()
    if league_id is None:
        raise NotFoundError(f"no league named {name!r}")
    return league_id


def _league_state(db: Database, league_id: int) -> tuple[Any, ...]:
    """What the live fragment shows changes only when one of these does."""
    with db.read() as session:
        league = session.get(League, league_id)
        if league is None:
            return (True,)
        counts = session.exec(
            select(Match.status, func.count(), func.max(Match.id))
            .where(Match.league_id == league_id)
            .group_by(col(Match.status))
            .order_by(col(Match.status))
        ).all()
        return (league.finished, league.paused, league.status_reason, tuple(map(tuple, counts)))
