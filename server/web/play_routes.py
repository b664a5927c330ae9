"""The play page (``/play``): a signed-in author, or a guest under a name of their own (when the
server takes guests), picks a game, opponents, a seat and a clock, and plays that seat in the
browser (docs/play.md). One table per console session, held by a ``SeatRelay`` (the server's
``Play`` stream, with the author's own token, or naming the guest).

The page's script follows ``/api/play/events``, server-sent events (``table``: the page's data,
``table_view``, at every change: the seat's requests, and its own observation after each move of
any seat, so the other seats' moves show as they happen); the stream waits on the event loop,
holding no thread. ``/api/play`` is the same data once. A click is posted to
``/api/play/answer``: refused with the reason (409) unless it answers the open request with one
of its legal actions. A tab closed stops nothing: the clock runs on, and at
its end the seat is lost (the referee's rule for every seat); the bots play on.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from kingmaker.games.registry import get_game
from kingmaker.ladder.bots.bots import list_bots
from kingmaker.ladder.bots.persons import guest_name, is_person
from kingmaker.ladder.bots.version_picks import own_versions
from kingmaker.ladder.errors import LadderError
from kingmaker.ladder.storage.db import Database
from kingmaker.server.web import queries
from kingmaker.server.web.console.client import ConsoleClient, ConsoleError
from kingmaker.server.web.console.routes import NO_SERVER, NotSignedIn
from kingmaker.server.web.console.sessions import Session, SessionStore, check_csrf
from kingmaker.server.web.console.sign_in_limit import SignInLimit
from kingmaker.server.web.live_feed import HEARTBEAT_S, event, stream
from kingmaker.server.web.play_view import table_view
from kingmaker.server.web.seat_relay import Refused, SeatRelay
from kingmaker.v1 import admin_pb2

Page = Callable[..., Response]
BOTS_LISTED = 500
"""The most opponents the form offers per game (by name)."""
MINUTE_MS = 60_000


def play_routes(
    db: Database, client: ConsoleClient | None, sessions: SessionStore, page: Page, sign_in_limit: SignInLimit
) -> list[Route]:
    tables: dict[str, SeatRelay] = {}
    """Each console session's table, by the session's own CSRF token (the relay outlives a page)."""
    lock = threading.Lock()

    def signed_in(request: Request) -> Session:
        """An author's session, or a guest's."""
        session = sessions.get(request)
        if session is None or (session.token is None and not session.guest):
            raise NotSignedIn()
        return session

    def table_of(session: Session) -> SeatRelay | None:
        with lock:
            return tables.get(session.csrf)

    def play(request: Request) -> Response:
        session = sessions.get(request)
        if session is None or (session.token is None and not session.guest):  # a visitor
            fresh = session or Session()
            response = page(request, "play_guest.html", session=fresh, notice="")
            if session is None:
                sessions.start(response, request, fresh)
            return response
        relay = table_of(session)
        if relay is not None:
            return page(request, "play_table.html", session=session, notice="", view=table_view(relay.state))
        author = session.author if session.token is not None else ""  # a guest owns no bot
        return page(request, "play.html", session=session, notice="", data=_choices(db, author))

    async def start(request: Request) -> Response:
        session = signed_in(request)
        form = await request.form(max_files=0, max_fields=16)
        check_csrf(session, str(form.get("csrf", "")))
        if client is None:
            raise ConsoleError(503, NO_SERVER)
        setup = _setup(form)
        relay = await run_in_threadpool(SeatRelay, client, session.token, setup, session.guest)
        with lock:
            old = tables.pop(session.csrf, None)
            tables[session.csrf] = relay
        if old is not None:
            old.leave()
        return RedirectResponse("/play", status_code=303)

    async def guest(request: Request) -> Response:
        """A visitor sits down as a guest under the name they pick (the server decides whether it
        takes guests, and how many); as often per address as anyone may try to sign in."""
        sign_in_limit.attempt(request)
        form = await request.form(max_files=0, max_fields=2)
        session = sessions.get(request)
        check_csrf(session, str(form.get("csrf", "")))
        name = str(form.get("name", "")).strip()
        try:
            guest_name(name)
        except LadderError as error:
            raise ConsoleError(400, str(error)) from None
        response = RedirectResponse("/play", status_code=303)
        sessions.start(response, request, Session(guest=name, author=f"guest {name}"))
        return response

    async def leave(request: Request) -> Response:
        session = signed_in(request)
        form = await request.form(max_files=0, max_fields=2)
        check_csrf(session, str(form.get("csrf", "")))
        with lock:
            relay = tables.pop(session.csrf, None)
        if relay is not None:
            relay.leave()
        return RedirectResponse("/play", status_code=303)

    def api_play(request: Request) -> Response:
        session = signed_in(request)
        relay = table_of(session)
        if relay is None:
            return JSONResponse({"error": "no table: start one at /play"}, status_code=404)
        return JSONResponse(table_view(relay.state), headers={"cache-control": "private, no-store"})

    def api_events(request: Request) -> Response:
        session = signed_in(request)
        relay = table_of(session)
        if relay is None:
            return JSONResponse({"error": "no table: start one at /play"}, status_code=404)
        return stream(_table_events(relay))

    async def answer(request: Request) -> Response:
        session = signed_in(request)
        check_csrf(session, request.headers.get("x-csrf-token", ""))
        relay = table_of(session)
        if relay is None:
            return JSONResponse({"error": "no table: start one at /play"}, status_code=404)
        try:
            body = await request.json()
            request_id, index = body["request_id"], body["index"]
            if not isinstance(request_id, int) or not isinstance(index, int):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            return JSONResponse({"error": 'send {"request_id": N, "index": K}'}, status_code=400)
        try:
            relay.answer(request_id, index)
        except Refused as refused:
            return JSONResponse({"error": str(refused)}, status_code=409)
        return JSONResponse({"sent": True})

    return [
        Route("/play", play),
        Route("/play/start", start, methods=["POST"]),
        Route("/play/guest", guest, methods=["POST"]),
        Route("/play/leave", leave, methods=["POST"]),
        Route("/api/play", api_play),
        Route("/api/play/events", api_events),
        Route("/api/play/answer", answer, methods=["POST"]),
    ]


async def _table_events(relay: SeatRelay) -> AsyncIterator[str]:
    """``table`` at every change of the table until it is over; a comment line when quiet."""
    version = -1
    while True:
        state = await relay.changed(version, HEARTBEAT_S)
        if state.version == version:
            yield ": still here\n\n"
            continue
        version = state.version
        yield event("table", await asyncio.to_thread(table_view, state))  # draws the board
        if state.end is not None or state.failure:
            return


def _choices(db: Database, author: str) -> dict[str, Any]:
    """The form's choices: each game with its seat counts and the active bots that play it, and
    for a signed-in author their own bots' versions that may play (``NAME@N``; theirs only)."""
    games = []
    for game in queries.games():
        spec = get_game(game["name"]).spec
        bots = [
            bot.name
            for bot in list_bots(db, game["name"], BOTS_LISTED)
            if bot.active and not bot.retired and not is_person(bot.name)
        ]
        versions = own_versions(db, author, game["name"]) if author else []
        games.append(
            {**game, "min": spec.min_players, "max": spec.max_players, "bots": bots, "versions": versions}
        )
    return {"games": games, "bank_minutes": 5, "increment_seconds": 10}


def _setup(form: Any) -> admin_pb2.PlaySetup:
    opponents = [str(name) for name in form.getlist("opponent") if str(name)]
    seat = _whole(str(form.get("seat", "0")), "seat")
    bank = _whole(str(form.get("bank_minutes", "5")), "bank_minutes")
    increment = _whole(str(form.get("increment_seconds", "10")), "increment_seconds")
    return admin_pb2.PlaySetup(
        game=str(form.get("game", "")),
        opponents=opponents,
        seat=seat,
        bank_ms=min(bank, 60) * MINUTE_MS,
        increment_ms=min(increment, 600) * 1000,
    )


def _whole(text: str, name: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise ConsoleError(400, f"{name} must be a whole number, not {text[:40]!r}")
    return int(text)
