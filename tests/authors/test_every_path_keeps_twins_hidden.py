"""Issue 43, finding 3: while a duplicate twin was still running, ``GetMatch`` hid its finished
sibling, but ``GetBotLogs(bot, match_id=…)`` (``bot logs BOT --match N``, the console's match page)
gave the bot's owner its whole stderr of that sibling, and ``bot logs BOT`` listed it too: a bot
that prints what it saw told its author the draws of the twin still in play.

One rule (``ladder/matches/secrecy.py``) for every path that returns a match's contents, owners
included. This test walks every Admin RPC, read from the service's descriptor, and every route of
the website, read from the site as built: each is classified here as naming a match (then it is
called, as the owner of every seat and as nobody, about the hidden sibling) or as naming none
(with why). A new RPC or route without a classification fails the test, so none can skip the rule.
"""

from __future__ import annotations

import http.client
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import grpc
import pytest
from starlette import applications
from starlette.routing import Mount, Route
from web_support import play_and_record

from kingmaker.ladder.bots import authors
from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.leagues.leagues import create_league, next_matches
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.ladder.records import MatchTicket
from kingmaker.ladder.step_output import StepOutput, pack_steps
from kingmaker.ladder.storage.models import SeatLog
from kingmaker.server.background import BackgroundServer
from kingmaker.server.web.serve import BackgroundWebServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

STDERR = "SAW-STDERR my hand: the dragon tile and 3 gold\n" * 40
STEP = "SAW-STEP the castle card drawn next"
SECRETS = ("SAW-STDERR", "SAW-STEP")
BOTS = ("ada", "brick")


@dataclass
class Twins:
    server: BackgroundServer
    site_url: str
    token: str
    """ann's: she owns every seat's bot."""
    hidden: int
    """The finished sibling whose twin is still running."""
    seed: int
    twin: MatchTicket


@pytest.fixture
def twins(server: BackgroundServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Twins]:
    db = server.server.db
    ann, token = authors.add_author(db, "ann")
    for name in BOTS:
        register_bot(db, name, ["kingdoms"], author_id=ann.id)
    league = create_league(db, "dup", "kingdoms", list(BOTS), players=2, duplicate=True, seed=4)
    first, second = next_matches(db, league.id, 2)
    assert first.seed == second.seed
    play_and_record(db, first, seed=1, stderr=STDERR, think=True)
    with db.transaction() as session:  # and what it printed at a step, as the referee keeps it
        log = session.get(SeatLog, (first.match_id, 0))
        assert log is not None
        log.steps = pack_steps((StepOutput(0, STEP, len(STEP)),))
        session.add(log)
    mark_running(db, second.match_id)
    site = BackgroundWebServer(db, admin_address=server.address)
    try:
        yield Twins(server, site.url, token, first.match_id, first.seed, second)
    finally:
        site.stop()


def leaks(text: str, twins: Twins) -> list[str]:
    return [secret for secret in (*SECRETS, str(twins.seed)) if secret in text]


def records_of(message: Any) -> Iterator[Any]:
    """Every MatchRecord in a reply, however deep."""
    if isinstance(message, admin_pb2.MatchRecord):
        yield message
    for field, value in message.ListFields() if hasattr(message, "ListFields") else ():
        if field.message_type is None:
            continue
        for item in value if field.is_repeated else [value]:
            yield from records_of(item)


def derived(record: Any) -> list[str]:
    """What a record of the hidden match shows that derives from its seed: its decisions, their
    number (each seat's think times count them), digests, logs, stderr."""
    shown = ["seed"] if record.seed else []
    shown += [
        name
        for name in ("decisions", "observation_digests", "seat_times", "seat_logs")
        if len(getattr(record, name))
    ]
    return shown + [f"seat {seat.seat} stderr" for seat in record.seats if seat.stderr_tail]


# ---- the Admin service ------------------------------------------------------------------------

Request = Callable[[Twins], Any]
# Per RPC: the requests that name (or list) the hidden match, or why the RPC names no match.
RPCS: dict[str, list[Request] | str] = {
    "GetMatch": [lambda t: admin_pb2.GetMatchRequest(match_id=str(t.hidden))],
    "ListMatches": [
        lambda t: admin_pb2.ListMatchesRequest(league="dup"),
        lambda t: admin_pb2.ListMatchesRequest(game="kingdoms"),
        lambda t: admin_pb2.ListMatchesRequest(),
        *(lambda t, bot=bot: admin_pb2.ListMatchesRequest(bot=bot) for bot in BOTS),
        *(lambda t, bot=bot: admin_pb2.ListMatchesRequest(bot=bot, result="win") for bot in BOTS),
    ],
    "GetBotLogs": [
        lambda t, bot=bot, match=match: admin_pb2.GetBotLogsRequest(bot=bot, match_id=match)
        for bot in BOTS
        for match in ("", "hidden")
    ],
    "GetBot": [lambda t, bot=bot: admin_pb2.GetBotRequest(name=bot) for bot in BOTS],
    "GetBotStats": [lambda t, bot=bot: admin_pb2.GetBotRequest(name=bot) for bot in BOTS],
    "GetLeague": [lambda t: admin_pb2.GetLeagueRequest(name="dup")],
    "GetLeaguePairs": [lambda t: admin_pb2.GetLeagueRequest(name="dup")],
    "ListLeagues": [lambda t: admin_pb2.ListLeaguesRequest()],
    "GetStandings": [
        lambda t: admin_pb2.GetStandingsRequest(game="kingdoms"),
        lambda t: admin_pb2.GetStandingsRequest(game="kingdoms", with_people=True),
    ],
    "GetRatingHistory": [
        lambda t: admin_pb2.GetRatingHistoryRequest(game="kingdoms"),
        *(lambda t, bot=bot: admin_pb2.GetRatingHistoryRequest(game="kingdoms", bot=bot) for bot in BOTS),
    ],
    "ListCompetitions": [lambda t: admin_pb2.ListCompetitionsRequest()],
    "RunMatch": "plays a new match and returns it as GetMatch does (the same _for_caller)",
    "ListNotices": "an author's notices name bots, versions and competitions, never a match's seed",
    "GetCompetition": "a competition's entries and standings: its matches are ListMatches'",
    "Duel": "plays unstored matches of its own; streams only the test's counts",
    "Play": "seats the caller in a new match of their own: streams that seat's requests, as a bot's stream",
    "WatchVersion": "a version's build log and checks: unstored matches from seeds of their own",
    "GetVersion": "a version's build log and checks: unstored matches from seeds of their own",
    "ListVersions": "a bot's versions: no match",
    "ListTrialMatches": "a version's validation and duel matches: seeds of their own, no ladder match",
    "GetTrialMatch": "one validation or duel match (trial:ID): seeds of their own, no ladder match",
    **dict.fromkeys(("ListGames", "ListBots", "WhoAmI", "ListAuthors"), "a listing of no match's contents"),
    **dict.fromkeys(
        [
            "AddBot",
            "SetBotEnabled",
            "RotateToken",
            "CheckBot",
            "ReinstateBot",
            "EditBot",
            "RemoveBot",
            "CreateLeague",
            "RunLeague",
            "RerunLeague",
            "PauseLeague",
            "ResumeLeague",
            "StopLeague",
            "JoinLeague",
            "LeaveLeague",
            "SetLadderPolicy",
            "AddAuthor",
            "SetAuthorEnabled",
            "SetAuthorQuota",
            "RotateAuthorToken",
            "RotateMyToken",
            "Submit",
            "RollbackBot",
            "PruneVersions",
            "CreateCompetition",
            "EnterCompetition",
            "SelectCompetitionVersion",
            "StartFinals",
            "LeaveCompetition",
        ],
        "a change; its reply is the changed bot, league, author or version, no match",
    ),
}


def test_every_admin_rpc_is_classified() -> None:
    methods = {method.name for method in admin_pb2.DESCRIPTOR.services_by_name["Admin"].methods}
    assert set(RPCS) == methods, f"unclassified: {methods - set(RPCS)}; gone: {set(RPCS) - methods}"


def call(method: Any, request: Any, metadata: Any) -> Any:
    """The reply, or the refusal (GetBotLogs to nobody): refused for want of a token only."""
    try:
        return method(request, metadata=metadata, timeout=60)
    except grpc.RpcError as error:
        refused = error
    assert refused.code() == grpc.StatusCode.UNAUTHENTICATED, refused
    return f"{refused.code()}: {refused.details()}"


def _request(make: Request, twins: Twins) -> Any:
    request = make(twins)
    if getattr(request, "match_id", None) == "hidden":
        request.match_id = str(twins.hidden)
    return request


@pytest.mark.parametrize("caller", ["owner", "anyone"])
def test_no_rpc_shows_anything_of_a_match_whose_twin_is_running(twins: Twins, caller: str) -> None:
    metadata = (("authorization", f"Bearer {twins.token}"),) if caller == "owner" else ()
    walked = 0
    with grpc.insecure_channel(twins.server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        for method, requests in RPCS.items():
            if isinstance(requests, str):
                continue
            for make in requests:
                reply = call(getattr(admin, method), _request(make, twins), metadata)
                # Before the fix GetBotLogs gave the owner the sibling's stderr and step output.
                assert not leaks(str(reply), twins), f"{method} shows the hidden match to the {caller}"
                for record in records_of(reply):
                    if record.match_id == str(twins.hidden):
                        assert not derived(record), f"{method} shows the hidden match's {derived(record)}"
                walked += not isinstance(reply, str)
    assert walked >= (16 if caller == "owner" else 12)


def test_the_owner_reads_the_logs_once_every_twin_is_over(twins: Twins) -> None:
    """The withholding is the twin's, not forever: the same calls then show everything."""
    play_and_record(twins.server.server.db, twins.twin, seed=2, already_running=True)
    metadata = (("authorization", f"Bearer {twins.token}"),)
    with grpc.insecure_channel(twins.server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        request = admin_pb2.GetBotLogsRequest(bot=BOTS[0], match_id=str(twins.hidden))
        logs = admin.GetBotLogs(request, metadata=metadata).logs
        assert any("SAW-STDERR" in log.stderr and log.steps for log in logs)
        listed = admin.GetBotLogs(admin_pb2.GetBotLogsRequest(bot=BOTS[0]), metadata=metadata).logs
        assert any("SAW-STDERR" in log.stderr for log in listed)


# ---- the website ------------------------------------------------------------------------------

# Per route: the paths that name (or list) the hidden match (HIDDEN stands for its id), or why
# the route names no match. Each GET is made signed in as the owner and as nobody.
HIDDEN = "{hidden}"
ROUTES: dict[str, list[str] | str] = {
    "/api/matches/{match_id}/live": [f"/api/matches/{HIDDEN}/live"],
    "/": ["/"],
    "/standings/{game}": ["/standings/kingdoms"],
    "/bots/{name}": [f"/bots/{bot}" for bot in BOTS],
    "/leagues/{name}": ["/leagues/dup"],
    "/leagues/{name}/events": ["/leagues/dup/events"],
    "/leagues/{name}/watch": ["/leagues/dup/watch"],
    "/competitions/{name}": "a competition's page: its matches are the league pages' (walked)",
    "/matches/{match_id}": [
        f"/matches/{HIDDEN}",
        f"/matches/{HIDDEN}?step=1&view=full",
        f"/matches/{HIDDEN}?step=1&view=seat:0",
    ],
    "/api": ["/api"],
    "/api/standings/{game}": ["/api/standings/kingdoms"],
    "/api/bots/{name}": [f"/api/bots/{bot}" for bot in BOTS],
    "/api/leagues/{name}": ["/api/leagues/dup"],
    "/api/leagues/{name}/live": ["/api/leagues/dup/live"],
    "/api/competitions/{name}": "a competition's data: its matches are the league pages' (walked)",
    "/api/matches/{match_id}": [f"/api/matches/{HIDDEN}"],
    "/api/matches/{match_id}/steps/{step}": [f"/api/matches/{HIDDEN}/steps/{step}" for step in (0, 1, 2)],
    "/console": ["/console"],
    "/api/console": ["/api/console"],
    "/console/bots/{name}": [f"/console/bots/{bot}" for bot in BOTS]
    + [f"/console/bots/{bot}?result=win" for bot in BOTS],
    "/api/console/bots/{name}": [f"/api/console/bots/{bot}" for bot in BOTS]
    + [f"/api/console/bots/{bot}?opponent={other}" for bot in BOTS for other in BOTS if other != bot],
    "/console/notices": ["/console/notices"],
    "/api/console/notices": ["/api/console/notices"],
    "/console/bots/{name}/matches/{match_id}": [f"/console/bots/{bot}/matches/{HIDDEN}" for bot in BOTS],
    "/api/console/bots/{name}/matches/{match_id}": [
        f"/api/console/bots/{bot}/matches/{HIDDEN}" for bot in BOTS
    ],
    "/console/bots/{name}/versions/{number}": "a version's build log and checks: no stored match",
    "/console/bots/{name}/versions/{number}/events": "a version's build log and checks: no stored match",
    "/api/console/bots/{name}/versions/{number}": "a version's build log and checks: no stored match",
    **dict.fromkeys(
        [
            "/console/bots/{name}/trials",
            "/console/bots/{name}/trials/{trial_id}",
            "/api/console/bots/{name}/trials",
            "/api/console/bots/{name}/trials/{trial_id}",
        ],
        "a version's validation and duel matches (ListTrialMatches, GetTrialMatch): no ladder match",
    ),
    **dict.fromkeys(
        [
            "/console/sign-in",
            "/console/sign-out",
            "/console/rotate",
            "/console/upload",
            "/console/bots/{name}/rollback",
            "/console/bots/{name}/leagues",
        ],
        "a form's POST: it changes something and redirects",
    ),
    "/static": "the site's own files",
    "/play": "the form (the caller's own bots' version numbers, no match's data), or the caller's "
    "own seat in the match they play: its observation only",
    **dict.fromkeys(
        ["/api/play", "/api/play/events"],
        "the caller's own seat in the match they play: its observation only",
    ),
    **dict.fromkeys(
        ["/play/start", "/play/leave", "/api/play/answer"], "a form's POST: the caller's own seat"
    ),
    "/play/guest": "a form's POST: starts the visitor's own guest session, shows nothing",
}


def site_routes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: BackgroundServer) -> set[str]:
    """The paths of every route of the site as ``create_app`` builds it."""
    built: list[applications.Starlette] = []

    class Recorded(applications.Starlette):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr("kingmaker.server.web.app.Starlette", Recorded)
    from kingmaker.server.web.app import create_app

    create_app(server.server.db, admin_address=server.address)
    (site,) = built
    return {route.path for route in site.routes if isinstance(route, (Route, Mount))}


def test_every_route_of_the_site_is_classified(
    server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = site_routes(tmp_path, monkeypatch, server)
    assert set(ROUTES) == paths, f"unclassified: {paths - set(ROUTES)}; gone: {set(ROUTES) - paths}"


class Visitor:
    """GETs with a cookie, as a browser makes them; an event stream is read for a few seconds."""

    def __init__(self, url: str) -> None:
        address = urlsplit(url)
        self.host, self.port = address.hostname or "127.0.0.1", address.port or 80
        self.cookie = ""

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, str]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=120)
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if form is not None:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=urlencode(form) if form else None, headers=headers)
        response = connection.getresponse()
        if (response.getheader("set-cookie") or "").strip():
            self.cookie = (response.getheader("set-cookie") or "").split(";")[0]
        chunks: list[bytes] = []
        if (response.getheader("content-type") or "").startswith("text/event-stream"):
            assert connection.sock is not None
            connection.sock.settimeout(3)  # a stream stays open: what it sent at once is what shows
            try:
                while chunk := response.read1(65536):
                    chunks.append(chunk)
            except TimeoutError:
                pass
        else:
            chunks.append(response.read())
        connection.close()
        return response.status, b"".join(chunks).decode(errors="replace")

    def sign_in(self, token: str) -> None:
        status, page = self.request("GET", "/console")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)
        assert status == 200 and csrf, page
        status, page = self.request("POST", "/console/sign-in", {"csrf": csrf.group(1), "token": token})
        assert status in (200, 303), page


@pytest.mark.parametrize("caller", ["owner", "anyone"])
def test_no_page_shows_anything_of_a_match_whose_twin_is_running(twins: Twins, caller: str) -> None:
    visitor = Visitor(twins.site_url)
    if caller == "owner":
        visitor.sign_in(twins.token)
    walked = 0
    for route, paths in ROUTES.items():
        if isinstance(paths, str):
            continue
        for path in paths:
            status, body = visitor.request("GET", path.replace(HIDDEN, str(twins.hidden)))
            # Before the fix the console's match page gave the owner the sibling's stderr.
            assert not leaks(body, twins), f"{route} ({path}) shows the hidden match to the {caller}"
            walked += status == 200
    assert walked >= 10
