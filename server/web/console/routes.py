"""The authors' console (``/console``): sign in with an author token, see one's bots, versions,
builds (the log as it is written), validation and A/B duels and their trial matches, and one's own
seats' stderr and strikes in every match; upload an archive or a folder, roll back, enter or leave
ladder leagues, rotate one's token. Pages and their JSON twins (``/api/console``) read and act
through the Admin API with the author's own token (``client``); sessions and CSRF: ``sessions``."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from kingmaker.server.web.console import data as console_data
from kingmaker.server.web.console import trials as console_trials
from kingmaker.server.web.console import upload as console_upload
from kingmaker.server.web.console.client import ConsoleClient, ConsoleError
from kingmaker.server.web.console.match_query import MatchQuery
from kingmaker.server.web.console.sessions import Session, SessionStore, check_csrf
from kingmaker.server.web.console.sign_in_limit import SignInLimit
from kingmaker.v1 import admin_pb2

Page = Callable[..., Response]
NO_SERVER = (
    "the console needs the server: run the site with `kingmaker serve --web PORT`, or "
    "`kingmaker web --server ADDRESS`"
)


MATCH_IDS = 2**63
"""Match ids are below this (versions, below 2**31)."""


class NotSignedIn(Exception):
    """A console page or JSON asked for without a signed-in session."""


def console_routes(
    client: ConsoleClient | None, sessions: SessionStore, page: Page, sign_in_limit: SignInLimit
) -> list[Route]:
    def connected() -> ConsoleClient:
        if client is None:
            raise ConsoleError(503, NO_SERVER)
        return client

    def signed_in(request: Request) -> Session:
        session = sessions.get(request)
        if session is None or session.token is None:
            raise NotSignedIn()
        return session

    def render(request: Request, name: str, session: Session, **context: Any) -> Response:
        notice, session.notice = session.notice, ""
        return page(request, name, session=session, notice=notice, **context)

    def home(request: Request) -> Response:
        session = sessions.get(request)
        if session is not None and session.token is not None:
            data = console_data.home(connected(), session.token, session.author)
            return render(request, "console_home.html", session, data=data, new_token=None)
        if session is not None:  # signed out, with its CSRF token for the sign-in form
            return render(request, "console_signin.html", session)
        fresh = Session()
        response = render(request, "console_signin.html", fresh)
        sessions.start(response, request, fresh)
        return response

    def api_home(request: Request) -> Response:
        session = signed_in(request)
        assert session.token is not None
        return JSONResponse(console_data.home(connected(), session.token, session.author))

    async def sign_in(request: Request) -> Response:
        sign_in_limit.attempt(request)
        form = await request.form(max_files=0, max_fields=4)
        session = sessions.get(request)
        check_csrf(session, str(form.get("csrf", "")))
        token = str(form.get("token", "")).strip()
        who = await run_in_threadpool(connected().call, "WhoAmI", admin_pb2.WhoAmIRequest(), token or None)
        if who.role != "author":
            raise ConsoleError(401, "that is not an author's token (the console is for authors)")
        response = RedirectResponse("/console", status_code=303)
        sessions.start(response, request, Session(token=token, author=who.author.name))
        return response

    async def sign_out(request: Request) -> Response:
        form = await request.form(max_files=0, max_fields=2)
        check_csrf(sessions.get(request), str(form.get("csrf", "")))
        response = RedirectResponse("/console", status_code=303)
        sessions.end(response, request)
        return response

    async def rotate(request: Request) -> Response:
        session = signed_in(request)
        form = await request.form(max_files=0, max_fields=2)
        check_csrf(session, str(form.get("csrf", "")))
        answer = await run_in_threadpool(
            connected().call, "RotateMyToken", admin_pb2.RotateMyTokenRequest(), session.token
        )
        sessions.signed_out(session.author)  # the old token is dead: so is every session made with it
        renewed = Session(token=answer.token, author=session.author)
        data = await run_in_threadpool(console_data.home, connected(), answer.token, session.author)
        response = render(request, "console_home.html", renewed, data=data, new_token=answer.token)
        sessions.start(response, request, renewed)
        response.headers["cache-control"] = "no-store"
        return response

    async def upload(request: Request) -> Response:
        session = signed_in(request)
        length = request.headers.get("content-length", "")
        if not length.isdigit():
            raise ConsoleError(411, "an upload must say its length")
        if int(length) > console_upload.MAX_UPLOAD_BYTES:
            raise ConsoleError(413, f"an upload may be {console_upload.MAX_UPLOAD_BYTES:,} bytes at most")
        async with request.form(max_files=console_upload.MAX_FILES + 1, max_fields=10) as form:
            check_csrf(session, str(form.get("csrf", "")))
            name = str(form.get("bot", "")).strip()
            games = str(form.get("games", "")).replace(",", " ").split()
            archive = form.get("archive")
            folder = [item for item in form.getlist("folder") if not isinstance(item, str) and item.filename]
            chosen = archive if archive is not None and not isinstance(archive, str) else None
            version = await run_in_threadpool(
                _submit, connected(), session, name, games, form.get("ab") == "on", chosen, folder
            )
        # Its status is the page's to show, live: a notice saying "building" stayed through validation.
        session.notice = f"submitted {name} version {version.number}"
        return RedirectResponse(f"/console/bots/{name}/versions/{version.number}", status_code=303)

    def bot(request: Request) -> Response:
        session = signed_in(request)
        assert session.token is not None
        name = request.path_params["name"]
        only = MatchQuery.of(request.query_params)
        data = console_data.bot(connected(), session.token, session.author, name, _after(request), only)
        return render(request, "console_bot.html", session, data=data)

    def api_bot(request: Request) -> Response:
        session = signed_in(request)
        assert session.token is not None
        name = request.path_params["name"]
        only = MatchQuery.of(request.query_params)
        data = console_data.bot(connected(), session.token, session.author, name, _after(request), only)
        return JSONResponse(data)

    async def rollback(request: Request) -> Response:
        session = signed_in(request)
        form = await request.form(max_files=0, max_fields=3)
        check_csrf(session, str(form.get("csrf", "")))
        name, number = request.path_params["name"], _number(str(form.get("number", "")))
        await run_in_threadpool(console_data.own_bot, connected(), _token(session), session.author, name)
        request_ = admin_pb2.RollbackBotRequest(bot=name, number=number)
        await run_in_threadpool(connected().call, "RollbackBot", request_, session.token)
        session.notice = f"{name} plays version {number} again"
        return RedirectResponse(f"/console/bots/{name}", status_code=303)

    async def leagues(request: Request) -> Response:
        session = signed_in(request)
        form = await request.form(max_files=0, max_fields=4)
        check_csrf(session, str(form.get("csrf", "")))
        name, league = request.path_params["name"], str(form.get("league", ""))
        joining = form.get("action") == "join"
        await run_in_threadpool(console_data.own_bot, connected(), _token(session), session.author, name)
        method = "JoinLeague" if joining else "LeaveLeague"
        member = admin_pb2.LeagueMemberRequest(name=league, bot=name)
        try:
            await run_in_threadpool(connected().call, method, member, session.token)
            session.notice = f"{name} {'entered' if joining else 'left'} {league}"
        except ConsoleError as error:  # (a page shown before a change: say so on the bot's page)
            if error.status not in (404, 409):
                raise
            session.notice = f"{name} could not {'enter' if joining else 'leave'} {league}: {error}"
        return RedirectResponse(f"/console/bots/{name}", status_code=303)

    def version(request: Request) -> Response:
        session = signed_in(request)
        assert session.token is not None
        name, number = request.path_params["name"], _number(request.path_params["number"])
        data = console_data.version(connected(), session.token, session.author, name, number)
        return render(request, "console_version.html", session, data=data)

    def api_version(request: Request) -> Response:
        session = signed_in(request)
        assert session.token is not None
        name, number = request.path_params["name"], _number(request.path_params["number"])
        return JSONResponse(console_data.version(connected(), session.token, session.author, name, number))

    def version_events(request: Request) -> Response:
        session = signed_in(request)
        assert session.token is not None
        name, number = request.path_params["name"], _number(request.path_params["number"])
        console_data.own_bot(connected(), session.token, session.author, name)
        watch = admin_pb2.GetVersionRequest(bot=name, number=number)
        messages = connected().stream("WatchVersion", watch, session.token)
        return StreamingResponse(_events(messages), media_type="text/event-stream")

    def match(request: Request) -> Response:
        session = signed_in(request)
        assert session.token is not None
        name, match_id = request.path_params["name"], str(_number(request.path_params["match_id"], MATCH_IDS))
        data = console_data.match(connected(), session.token, session.author, name, match_id)
        return render(request, "console_match.html", session, data=data)

    def api_match(request: Request) -> Response:
        session = signed_in(request)
        assert session.token is not None
        name, match_id = request.path_params["name"], str(_number(request.path_params["match_id"], MATCH_IDS))
        return JSONResponse(console_data.match(connected(), session.token, session.author, name, match_id))

    def read_trials(request: Request, session: Session) -> dict[str, Any]:
        name, version = request.path_params["name"], _version(request)
        older = _before(request)
        return console_trials.trials(connected(), _token(session), session.author, name, version, older)

    def read_trial(request: Request, session: Session) -> dict[str, Any]:
        name, trial_id = request.path_params["name"], _number(request.path_params["trial_id"], MATCH_IDS)
        return console_trials.trial(connected(), _token(session), session.author, name, trial_id)

    def trials(request: Request) -> Response:
        session = signed_in(request)
        return render(request, "console_trials.html", session, data=read_trials(request, session))

    def api_trials(request: Request) -> Response:
        return JSONResponse(read_trials(request, signed_in(request)))

    def trial(request: Request) -> Response:
        session = signed_in(request)
        return render(request, "console_trial.html", session, data=read_trial(request, session))

    def api_trial(request: Request) -> Response:
        return JSONResponse(read_trial(request, signed_in(request)))

    def notices(request: Request) -> Response:
        session = signed_in(request)
        data = console_data.notices(connected(), _token(session), _before(request))
        return render(request, "console_notices.html", session, data=data)

    def api_notices(request: Request) -> Response:
        session = signed_in(request)
        return JSONResponse(console_data.notices(connected(), _token(session), _before(request)))

    return [
        Route("/console", home),
        Route("/console/notices", notices),
        Route("/api/console/notices", api_notices),
        Route("/console/sign-in", sign_in, methods=["POST"]),
        Route("/console/sign-out", sign_out, methods=["POST"]),
        Route("/console/rotate", rotate, methods=["POST"]),
        Route("/console/upload", upload, methods=["POST"]),
        Route("/console/bots/{name}", bot),
        Route("/console/bots/{name}/rollback", rollback, methods=["POST"]),
        Route("/console/bots/{name}/leagues", leagues, methods=["POST"]),
        Route("/console/bots/{name}/versions/{number}", version),
        Route("/console/bots/{name}/versions/{number}/events", version_events),
        Route("/console/bots/{name}/matches/{match_id}", match),
        Route("/api/console", api_home),
        Route("/api/console/bots/{name}", api_bot),
        Route("/api/console/bots/{name}/versions/{number}", api_version),
        Route("/api/console/bots/{name}/matches/{match_id}", api_match),
        Route("/console/bots/{name}/trials", trials),
        Route("/console/bots/{name}/trials/{trial_id}", trial),
        Route("/api/console/bots/{name}/trials", api_trials),
        Route("/api/console/bots/{name}/trials/{trial_id}", api_trial),
    ]


def _submit(
    client: ConsoleClient,
    session: Session,
    name: str,
    games: list[str],
    ab: bool,
    archive: Any,
    folder: list[Any],
) -> admin_pb2.VersionInfo:
    if not name:
        raise console_upload.UploadRefused("name the bot")
    with console_upload.staging_folder() as staging:
        header, path = console_upload.submission(name, games, ab, archive, folder, Path(staging))
        return client.call("Submit", console_upload.chunks(header, path), session.token)  # type: ignore[no-any-return]


def _events(messages: Iterator[admin_pb2.VersionInfo]) -> Iterator[str]:
    """Server-sent events, one per step of the version, until it has no more steps."""
    try:
        for message in messages:
            yield f"data: {json.dumps(console_data.watch_event(message))}\n\n"
    except ConsoleError as error:
        yield f"event: failure\ndata: {json.dumps({'error': str(error)})}\n\n"


def _after(request: Request) -> str:
    """The ``after`` page token of a bot's matches: a match id, or nothing (the newest)."""
    after = request.query_params.get("after", "")
    return str(_number(after, MATCH_IDS)) if after else ""


def _version(request: Request) -> int | None:
    """The ``version`` a list of trial matches is limited to, if any."""
    version = request.query_params.get("version", "")
    return _number(version) if version else None


def _before(request: Request) -> str:
    """The ``before`` page token of the notices or of a bot's trial matches: the id of the last
    one of the page before, or nothing (the newest)."""
    before = request.query_params.get("before", "")
    return str(_number(before)) if before else ""


def _token(session: Session) -> str:
    assert session.token is not None, "signed in"
    return session.token


def _number(text: str, limit: int = 2**31) -> int:
    if not text.isdigit() or not 0 < int(text) < limit:
        raise ConsoleError(400, f"not a number: {text[:40]!r}")
    return int(text)
