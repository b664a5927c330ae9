"""The read-only website over the ladder database: Starlette routes, Jinja2 templates, and a JSON
API beside every page that returns the very dicts the page is rendered from (docs/web.md).

Routes are plain functions, so Starlette runs them in its thread pool and a slow read never holds
the event loop. Nothing here writes to the database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from kingmaker.ladder.db import Database
from kingmaker.ladder.errors import NotFoundError
from kingmaker.server.web import queries
from kingmaker.server.web.boards import draw_board
from kingmaker.server.web.plot import rating_plot
from kingmaker.server.web.replay import Frame, Replay, ReplayUnavailable, load_replay

HERE = Path(__file__).parent


class BadRequest(ValueError):
    """A query parameter out of range: answered 400 with one line."""


def create_app(db: Database) -> Starlette:
    """The site over ``db``; the caller owns (and closes) the database."""
    templates = Environment(
        loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"]), auto_reload=False
    )
    templates.globals["rating_plot"] = rating_plot

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        html = templates.get_template(name).render(request=request, **context)
        return HTMLResponse(html, status_code=status)

    def index(request: Request) -> Response:
        return page(request, "index.html", games=queries.games(), leagues=queries.league_names(db))

    def api_index(request: Request) -> Response:
        return JSONResponse({"games": queries.games(), "leagues": queries.league_names(db)})

    def standings(request: Request) -> Response:
        data = queries.standings_page(db, request.path_params["game"], _page(request))
        return page(request, "standings.html", data=data)

    def api_standings(request: Request) -> Response:
        return JSONResponse(queries.standings_page(db, request.path_params["game"], _page(request)))

    def bot(request: Request) -> Response:
        return page(
            request, "bot.html", data=queries.bot_page(db, request.path_params["name"], _page(request))
        )

    def api_bot(request: Request) -> Response:
        return JSONResponse(queries.bot_page(db, request.path_params["name"], _page(request)))

    def league(request: Request) -> Response:
        data = queries.league_page(db, request.path_params["name"], _page(request))
        return page(request, "league.html", data=data)

    def league_live(request: Request) -> Response:
        data = queries.league_page(db, request.path_params["name"], _page(request))
        return page(request, "league_live.html", data=data)

    def api_league(request: Request) -> Response:
        return JSONResponse(queries.league_page(db, request.path_params["name"], _page(request)))

    def match(request: Request) -> Response:
        match_id = _match_id(request)
        data = queries.match_page(db, match_id)
        replay, why = _replay_or_reason(db, match_id, data["status"])
        steps = len(replay.frames) - 1 if replay else 0
        return page(request, "match.html", data=data, steps=steps, replay_note=why)

    def api_match(request: Request) -> Response:
        match_id = _match_id(request)
        data = queries.match_page(db, match_id)
        replay, why = _replay_or_reason(db, match_id, data["status"])
        data["replay"] = _replay_outline(replay) if replay else {"unavailable": why}
        return JSONResponse(data)

    def api_step(request: Request) -> Response:
        match_id = _match_id(request)
        replay, why = _replay_or_reason(db, match_id, queries.match_page(db, match_id)["status"])
        if replay is None:
            raise NotFoundError(why or f"match {match_id} has no replay")
        step = _int(request.path_params["step"], "step", 0, len(replay.frames) - 1)
        viewer = _viewer(request, len(replay.bots))
        return JSONResponse(_step(replay, replay.frames[step], viewer))

    async def not_found(request: Request, error: Exception) -> Response:
        return _error(request, 404, str(error), page)

    async def bad_request(request: Request, error: Exception) -> Response:
        return _error(request, 400, str(error), page)

    async def http_error(request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        return _error(request, error.status_code, str(error.detail), page)

    routes = [
        Route("/", index),
        Route("/standings/{game}", standings),
        Route("/bots/{name}", bot),
        Route("/leagues/{name}", league),
        Route("/leagues/{name}/live", league_live),
        Route("/matches/{match_id}", match),
        Route("/api", api_index),
        Route("/api/standings/{game}", api_standings),
        Route("/api/bots/{name}", api_bot),
        Route("/api/leagues/{name}", api_league),
        Route("/api/matches/{match_id}", api_match),
        Route("/api/matches/{match_id}/steps/{step}", api_step),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return Starlette(
        routes=routes,
        exception_handlers={NotFoundError: not_found, BadRequest: bad_request, HTTPException: http_error},
    )


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
    text = request.query_params.get("view", "all")
    return None if text == "all" else _int(text, "view", 0, seats - 1)


def _replay_or_reason(db: Database, match_id: int, status: str) -> tuple[Replay | None, str | None]:
    if status != "finished":
        return None, f"the replay shows once the match has finished (it is {status})"
    try:
        return load_replay(db, match_id), None
    except ReplayUnavailable as error:
        return None, str(error)


def _replay_outline(replay: Replay) -> dict[str, Any]:
    return {
        "steps": len(replay.frames) - 1,
        "final_scores": list(replay.final_scores),
        "final_ranks": list(replay.final_ranks),
        "recorded_scores": list(replay.recorded_scores),
        "score_name": replay.score_name,
    }


def _step(replay: Replay, frame: Frame, viewer: int | None) -> dict[str, Any]:
    """One step as the viewer saw it: a seat's view holds its own observation and the chance it saw."""
    seen = [event for event in frame.chance if viewer is None or event.seats is None or viewer in event.seats]
    return {
        "match_id": replay.match_id,
        "game": replay.game,
        "step": frame.step,
        "steps": len(replay.frames) - 1,
        "view": "all" if viewer is None else viewer,
        "bots": list(replay.bots),
        "moves": [
            {"seat": m.seat, "bot": m.bot, "action": m.action, "data": m.data, "ms": m.ms, "source": m.source}
            for m in frame.moves
        ],
        "chance": [{"text": event.text, "seats": event.seats} for event in seen],
        "scores": list(frame.scores),
        "score_name": replay.score_name,
        "to_act": list(frame.to_act),
        "observations": list(frame.observations) if viewer is None else [frame.observations[viewer]],
        "secrets": frame.secrets if viewer is None else {},
        "final": {"scores": list(replay.final_scores), "ranks": list(replay.final_ranks)}
        if frame.step == len(replay.frames) - 1
        else None,
        "svg": draw_board(replay.game, frame.observations, viewer, replay.bots, frame.secrets),
    }
