"""The read-only website over the ladder database: Starlette routes, Jinja2 templates, and a JSON
API beside every page that returns the very dicts the page is rendered from (docs/web.md).

Routes are plain functions, so Starlette runs them in its thread pool and a slow read never holds
the event loop. Nothing here writes to the database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from kingmaker.ladder.competitions.competition_clock import competition_now
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.secrecy import secrets_verdict
from kingmaker.ladder.storage.db import Database
from kingmaker.server.live import LiveHub
from kingmaker.server.visible_text import visible
from kingmaker.server.web import queries
from kingmaker.server.web.boards import board_facts
from kingmaker.server.web.bot_page import FAULTS, bot_page
from kingmaker.server.web.competition_page import competition_names, competition_page
from kingmaker.server.web.console.client import ConsoleClient, ConsoleError
from kingmaker.server.web.console.routes import NotSignedIn, console_routes
from kingmaker.server.web.console.sessions import CsrfRefused, SessionStore
from kingmaker.server.web.console.sign_in_limit import SignInLimit, TooManySignIns
from kingmaker.server.web.console.upload import UploadRefused
from kingmaker.server.web.league_live import LeagueBoards, league_door, league_facts, league_follow
from kingmaker.server.web.live_channels import LiveWatch
from kingmaker.server.web.live_feed import crowd_door, league_stream, match_stream, stream
from kingmaker.server.web.own_output import own_output
from kingmaker.server.web.play_routes import play_routes
from kingmaker.server.web.plot import rating_plot
from kingmaker.server.web.replay import Replay, ReplayUnavailable, load_replay
from kingmaker.server.web.security_headers import security_headers
from kingmaker.server.web.steps import BadView, parse_view, replay_outline, step_data

HERE = Path(__file__).parent


class BadRequest(ValueError):
    """A query parameter out of range: answered 400 with one line."""


def create_app(
    db: Database, live: LiveHub | None = None, admin_address: str | None = None, people_delay_s: float = 0.0
) -> ASGIApp:
    """The site over ``db``; the caller owns (and closes) the database. ``live``: the server's
    live hub, when the site runs inside it (``serve --web``): running matches then show live.
    ``admin_address``: the server's gRPC address, which the authors' console calls with each
    author's token (without it the console says it needs the server). ``people_delay_s``: how
    many seconds late spectators see the live board of a match a person plays (a league's delay
    is the league's own; a one-off match of bots is shown at once)."""
    templates = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(["html"]),
        auto_reload=False,
        finalize=_visible,
    )
    templates.globals["rating_plot"] = rating_plot
    templates.globals["board_facts"] = board_facts
    watch = LiveWatch(db, live, people_delay_s)
    boards = LeagueBoards(watch)
    client = ConsoleClient(admin_address) if admin_address else None
    sessions = SessionStore()
    sign_in_limit = SignInLimit()
    """Tries to sign in, as an author or as a guest, per address."""

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        html = templates.get_template(name).render(request=request, **context)
        return HTMLResponse(html, status_code=status)

    def index(request: Request) -> Response:
        return page(
            request, "index.html", games=queries.games(), leagues=queries.league_names(db),
            competitions=competition_names(db),
        )  # fmt: skip

    def api_index(request: Request) -> Response:
        return JSONResponse(
            {
                "games": queries.games(),
                "leagues": queries.league_names(db),
                "competitions": competition_names(db),
            }
        )

    def standings(request: Request) -> Response:
        data = queries.standings_page(db, request.path_params["game"], _page(request))
        return page(request, "standings.html", data=data)

    def api_standings(request: Request) -> Response:
        return JSONResponse(queries.standings_page(db, request.path_params["game"], _page(request)))

    def bot(request: Request) -> Response:
        return page(request, "bot.html", data=_bot(db, request))

    def api_bot(request: Request) -> Response:
        return JSONResponse(_bot(db, request))

    def league(request: Request) -> Response:
        data = queries.league_page(db, request.path_params["name"], _page(request))
        return page(request, "league.html", data=data)

    def league_events(request: Request) -> Response:
        name, number = request.path_params["name"], _page(request)

        def render() -> str:
            data = queries.league_page(db, name, number)
            return templates.get_template("league_live.html").render(request=request, data=data)

        return league_stream(db, name, render)

    def league_watch(request: Request) -> Response:
        data = league_facts(db, request.path_params["name"])
        return page(request, "league_watch.html", data=data, live=live is not None)

    async def api_league_live(request: Request) -> Response:  # on the loop, as a match's stream
        return stream(await league_follow(boards, request.path_params["name"]))

    async def api_match_live(request: Request) -> Response:  # on the loop: a watched match costs no thread
        return await match_stream(watch, _match_id(request))

    def api_league(request: Request) -> Response:
        return JSONResponse(queries.league_page(db, request.path_params["name"], _page(request)))

    def competition(request: Request) -> Response:
        data = competition_page(db, request.path_params["name"], competition_now())
        return page(request, "competition.html", data=data)

    def api_competition(request: Request) -> Response:
        return JSONResponse(competition_page(db, request.path_params["name"], competition_now()))

    def match(request: Request) -> Response:
        match_id = _match_id(request)
        data = queries.match_page(db, match_id)
        replay, why = _replay_or_reason(db, match_id, data["secrets"]["reason"])
        moment = None
        if replay is not None:
            step = _int(request.query_params.get("step", "0"), "step", 0, len(replay.frames) - 1)
            viewer = _viewer(request, len(replay.bots))
            moment = step_data(replay, replay.frames[step], viewer)
            moment["own_output"] = own_output(client, sessions, request, match_id, step)
        response = page(request, "match.html", data=data, moment=moment, replay_note=why)
        if moment is not None and moment["own_output"] is not None:
            response.headers["cache-control"] = "private, no-store"  # an author's own output
        return response

    def api_match(request: Request) -> Response:
        match_id = _match_id(request)
        data = queries.match_page(db, match_id)
        replay, why = _replay_or_reason(db, match_id, data["secrets"]["reason"])
        data["replay"] = replay_outline(replay) if replay else {"unavailable": why}
        return JSONResponse(data)

    def api_step(request: Request) -> Response:
        match_id = _match_id(request)
        replay, why = _replay_or_reason(db, match_id, secrets_verdict(db, match_id).reason)
        if replay is None:
            raise NotFoundError(why or f"match {match_id} has no replay")
        step = _int(request.path_params["step"], "step", 0, len(replay.frames) - 1)
        viewer = _viewer(request, len(replay.bots))
        data = step_data(replay, replay.frames[step], viewer)
        data["own_output"] = own_output(client, sessions, request, match_id, step)
        headers = {"cache-control": "private, no-store"} if data["own_output"] is not None else None
        return JSONResponse(data, headers=headers)

    async def console_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, ConsoleError)
        return _error(request, error.status, str(error), page)

    async def not_signed_in(request: Request, error: Exception) -> Response:
        if request.url.path.startswith("/api"):
            return JSONResponse({"error": "sign in first: /console"}, status_code=401)
        return RedirectResponse("/console", status_code=303)

    async def refused(request: Request, error: Exception) -> Response:
        return _error(request, 403, str(error), page)

    async def too_many_sign_ins(request: Request, error: Exception) -> Response:
        assert isinstance(error, TooManySignIns)
        response = _error(request, 429, str(error), page)
        response.headers["retry-after"] = str(error.retry_after)
        return response

    async def not_found(request: Request, error: Exception) -> Response:
        return _error(request, 404, str(error), page)

    async def bad_request(request: Request, error: Exception) -> Response:
        return _error(request, 400, str(error), page)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        return _error(request, error.status_code, str(error.detail), page)

    routes = [
        # First: a crowd of spectators opens hundreds of these a second (no other route matches it).
        Route("/api/matches/{match_id}/live", api_match_live),
        Route("/", index),
        Route("/standings/{game}", standings),
        Route("/bots/{name}", bot),
        Route("/leagues/{name}", league),
        Route("/leagues/{name}/events", league_events),
        Route("/leagues/{name}/watch", league_watch),
        Route("/competitions/{name}", competition),
        Route("/matches/{match_id}", match),
        Route("/api", api_index),
        Route("/api/standings/{game}", api_standings),
        Route("/api/bots/{name}", api_bot),
        Route("/api/leagues/{name}", api_league),
        Route("/api/leagues/{name}/live", api_league_live),
        Route("/api/competitions/{name}", api_competition),
        Route("/api/matches/{match_id}", api_match),
        Route("/api/matches/{match_id}/steps/{step}", api_step),
        *console_routes(client, sessions, page, sign_in_limit),
        *play_routes(db, client, sessions, page, sign_in_limit),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    site = Starlette(
        routes=routes,
        exception_handlers={
            ConsoleError: console_error,
            NotSignedIn: not_signed_in,
            CsrfRefused: refused,
            TooManySignIns: too_many_sign_ins,
            UploadRefused: bad_request,
            NotFoundError: not_found,
            BadRequest: bad_request,
            BadView: bad_request,
            HTTPException: http_error,
        },
    )
    return security_headers(crowd_door(league_door(site, boards), watch))


def _visible(value: Any) -> Any:
    """What a template shows: a bot's or an author's text with its control characters made
    visible; markup the site made itself (a board, JSON for a script) keeps its kind."""
    if isinstance(value, Markup):
        return Markup(visible(str(value)))
    return visible(value) if isinstance(value, str) else value


def _error(request: Request, status: int, message: str, page: Any) -> Response:
    if request.url.path.startswith("/api"):
        return JSONResponse({"error": message}, status_code=status)
    return page(request, "error.html", status=status, status_code=status, message=message)  # type: ignore[no-any-return]


def _int(text: str, name: str, low: int, high: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number, not {text[:40]!r}") from None
    if not low <= value <= high:
        raise BadRequest(f"{name} must be from {low} to {high}, not {value}")
    return value


def _page(request: Request) -> int:
    return _int(request.query_params.get("page", "1"), "page", 1, queries.MAX_PAGE)


def _match_id(request: Request) -> int:
    return _int(request.path_params["match_id"], "match id", 1, 2**63 - 1)


def _viewer(request: Request, seats: int) -> int | None:
    return parse_view(request.query_params.get("view", "full"), seats)


def _bot(db: Database, request: Request) -> dict[str, Any]:
    fault = request.query_params.get("fault") or None
    if fault is not None and fault not in FAULTS:
        raise BadRequest(f"fault must be one of {', '.join(FAULTS)}, not {fault[:40]!r}")
    return bot_page(db, request.path_params["name"], _page(request), fault)


def _replay_or_reason(db: Database, match_id: int, hidden: str | None) -> tuple[Replay | None, str | None]:
    """The replay, or why there is none: ``hidden`` is ``secrecy``'s reason for showing nothing yet."""
    if hidden:
        return None, hidden
    try:
        return load_replay(db, match_id), None
    except ReplayUnavailable as error:
        return None, str(error)
