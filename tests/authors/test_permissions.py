"""Every cell of the permission table in docs/authors.md, as a real call against a real server.

The table is read from the page itself, so the documentation and the server cannot drift apart:
each row is an Admin RPC, each column a kind of caller (no token; author ann on a bot of her own;
ann on a bot of ben's; the admin). "yes" means the call gets past the permission check (it may
still fail for other reasons: an unknown league is NOT_FOUND), "no" that it is refused with
PERMISSION_DENIED or UNAUTHENTICATED and changes nothing. What each reply shows, field by field,
is test_private_fields.py's.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from kingmaker.ladder.bots import authors, bots
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.services.permissions import PERMISSIONS
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

from support import REPO

CALLERS = ("anyone", "own", "other", "admin")
REFUSED = (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED)


def documented_table() -> dict[str, dict[str, bool]]:
    """The permission table of docs/authors.md: call -> caller -> allowed."""
    text = (REPO / "docs" / "authors.md").read_text()
    _, _, after = text.partition("<!-- permissions table")
    rows: dict[str, dict[str, bool]] = {}
    for line in after.splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        match = re.fullmatch(r"`(\w+)`", cells[0])
        if match is None:
            continue  # the header and its rule
        answers = cells[2:]
        assert len(answers) == len(CALLERS) and set(answers) <= {"yes", "no"}, line
        rows[match.group(1)] = {
            caller: answer == "yes" for caller, answer in zip(CALLERS, answers, strict=True)
        }
    return rows


TABLE = documented_table()


@dataclass
class World:
    server: BackgroundServer
    tokens: dict[str, str | None]
    """Per kind of caller, the token its calls carry."""
    ann: int
    ben: int
    counter: Iterator[int]

    def bot(self, owner: int | None) -> str:
        """A fresh remote bot of this owner's (a fresh one per call: some calls remove it)."""
        name = f"bot-{next(self.counter)}"
        bots.register_bot(self.server.server.db, name, ["kingdoms"], author_id=owner)
        return name


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KINGMAKER_HOME", str(home))
        server = BackgroundServer(ServerConfig(address="127.0.0.1:0", resume_leagues=False))
    try:
        db = server.server.db
        ann, ann_token = authors.add_author(db, "ann", bot_quota=500)
        ben, _ = authors.add_author(db, "ben", bot_quota=500)
        tokens = {"anyone": None, "own": ann_token, "other": ann_token, "admin": server.admin_token}
        yield World(server, tokens, ann.id, ben.id, itertools.count())
    finally:
        server.stop()


# Per call: its shape and a request naming a bot (``bot``) that the caller owns or not. Requests
# that are allowed fail harmlessly after the check where they would cost a match or a league (an
# unknown game, an unknown league).
Unary, ServerStream, ClientStream, BidiStream = "unary", "server-stream", "client-stream", "bidi-stream"
REQUESTS: dict[str, tuple[str, Callable[[str, str], Any]]] = {
    "ListGames": (Unary, lambda bot, fresh: admin_pb2.ListGamesRequest()),
    "RunMatch": (
        Unary,
        lambda bot, fresh: admin_pb2.RunMatchRequest(
            game="no-such-game", seats=[admin_pb2.MatchSeat(bot=bot), admin_pb2.MatchSeat(bot=bot)]
        ),
    ),
    "GetMatch": (Unary, lambda bot, fresh: admin_pb2.GetMatchRequest(match_id="999999")),
    "ListMatches": (Unary, lambda bot, fresh: admin_pb2.ListMatchesRequest()),
    "Play": (
        BidiStream,
        lambda bot, fresh: [
            admin_pb2.PlayMessage(setup=admin_pb2.PlaySetup(game="no-such-game", opponents=[bot]))
        ],
    ),
    "AddBot": (Unary, lambda bot, fresh: admin_pb2.AddBotRequest(name=fresh, games=["kingdoms"])),
    "ListBots": (Unary, lambda bot, fresh: admin_pb2.ListBotsRequest()),
    "GetBot": (Unary, lambda bot, fresh: admin_pb2.GetBotRequest(name=bot)),
    "GetBotStats": (Unary, lambda bot, fresh: admin_pb2.GetBotRequest(name=bot)),
    "SetBotEnabled": (Unary, lambda bot, fresh: admin_pb2.SetBotEnabledRequest(name=bot, enabled=False)),
    "RotateToken": (Unary, lambda bot, fresh: admin_pb2.RotateTokenRequest(name=bot)),
    "CheckBot": (Unary, lambda bot, fresh: admin_pb2.CheckBotRequest(name=bot)),
    "ReinstateBot": (Unary, lambda bot, fresh: admin_pb2.ReinstateBotRequest(name=bot)),
    "EditBot": (Unary, lambda bot, fresh: admin_pb2.EditBotRequest(name=bot, games=["kingsburg"])),
    "RemoveBot": (Unary, lambda bot, fresh: admin_pb2.RemoveBotRequest(name=bot)),
    "CreateLeague": (Unary, lambda bot, fresh: admin_pb2.CreateLeagueRequest(name=fresh, game="kingdoms")),
    "RunLeague": (ServerStream, lambda bot, fresh: admin_pb2.RunLeagueRequest(name=fresh)),
    "GetLeague": (Unary, lambda bot, fresh: admin_pb2.GetLeagueRequest(name=fresh)),
    "RerunLeague": (Unary, lambda bot, fresh: admin_pb2.RerunLeagueRequest(name=fresh, new_name=fresh + "x")),
    "ListLeagues": (Unary, lambda bot, fresh: admin_pb2.ListLeaguesRequest()),
    "PauseLeague": (Unary, lambda bot, fresh: admin_pb2.LeagueControlRequest(name=fresh)),
    "ResumeLeague": (Unary, lambda bot, fresh: admin_pb2.LeagueControlRequest(name=fresh)),
    "StopLeague": (Unary, lambda bot, fresh: admin_pb2.LeagueControlRequest(name=fresh)),
    "JoinLeague": (Unary, lambda bot, fresh: admin_pb2.LeagueMemberRequest(name=fresh, bot=bot)),
    "LeaveLeague": (Unary, lambda bot, fresh: admin_pb2.LeagueMemberRequest(name=fresh, bot=bot)),
    "GetLeaguePairs": (Unary, lambda bot, fresh: admin_pb2.GetLeagueRequest(name=fresh)),
    "GetStandings": (Unary, lambda bot, fresh: admin_pb2.GetStandingsRequest(game="kingdoms")),
    "GetRatingHistory": (Unary, lambda bot, fresh: admin_pb2.GetRatingHistoryRequest(game="kingdoms")),
    "SetLadderPolicy": (Unary, lambda bot, fresh: admin_pb2.SetLadderPolicyRequest(game="kingdoms")),
    "WhoAmI": (Unary, lambda bot, fresh: admin_pb2.WhoAmIRequest()),
    "AddAuthor": (Unary, lambda bot, fresh: admin_pb2.AddAuthorRequest(name=fresh)),
    "ListAuthors": (Unary, lambda bot, fresh: admin_pb2.ListAuthorsRequest()),
    "SetAuthorEnabled": (Unary, lambda bot, fresh: admin_pb2.SetAuthorEnabledRequest(name=fresh)),
    "SetAuthorQuota": (Unary, lambda bot, fresh: admin_pb2.SetAuthorQuotaRequest(name=fresh, bot_quota=1)),
    "RotateAuthorToken": (Unary, lambda bot, fresh: admin_pb2.RotateAuthorTokenRequest(name=fresh)),
    "RotateMyToken": (Unary, lambda bot, fresh: admin_pb2.RotateMyTokenRequest()),
    "Submit": (
        ClientStream,
        lambda bot, fresh: [
            admin_pb2.SubmitChunk(header=admin_pb2.SubmitHeader(bot=bot, format="zip", size=4)),
            admin_pb2.SubmitChunk(data=b"junk"),
        ],
    ),
    "WatchVersion": (ServerStream, lambda bot, fresh: admin_pb2.GetVersionRequest(bot=bot)),
    "GetVersion": (Unary, lambda bot, fresh: admin_pb2.GetVersionRequest(bot=bot)),
    "ListVersions": (Unary, lambda bot, fresh: admin_pb2.ListVersionsRequest(bot=bot)),
    "RollbackBot": (Unary, lambda bot, fresh: admin_pb2.RollbackBotRequest(bot=bot, number=1)),
    "GetBotLogs": (Unary, lambda bot, fresh: admin_pb2.GetBotLogsRequest(bot=bot)),
    "ListNotices": (Unary, lambda bot, fresh: admin_pb2.ListNoticesRequest()),
    "ListTrialMatches": (Unary, lambda bot, fresh: admin_pb2.ListTrialMatchesRequest(bot=bot)),
    # (no trial match yet: NOT_FOUND, once the caller is allowed to ask)
    "GetTrialMatch": (Unary, lambda bot, fresh: admin_pb2.GetTrialMatchRequest(bot=bot, trial_id=1)),
    "Duel": (ServerStream, lambda bot, fresh: admin_pb2.DuelRequest(game="no-such-game", a=bot, b=bot)),
    "PruneVersions": (Unary, lambda bot, fresh: admin_pb2.PruneVersionsRequest(bot=bot, dry_run=True)),
    "CreateCompetition": (
        Unary,
        lambda bot, fresh: admin_pb2.CreateCompetitionRequest(
            name=fresh, game="no-such-game", closes_at="2099-01-01T00:00:00Z"
        ),
    ),
    "EnterCompetition": (Unary, lambda bot, fresh: admin_pb2.CompetitionEntryRequest(name=fresh, bot=bot)),
    "LeaveCompetition": (Unary, lambda bot, fresh: admin_pb2.CompetitionEntryRequest(name=fresh, bot=bot)),
    "SelectCompetitionVersion": (
        Unary,
        lambda bot, fresh: admin_pb2.CompetitionEntryRequest(name=fresh, bot=bot, version=1),
    ),
    "GetCompetition": (Unary, lambda bot, fresh: admin_pb2.GetCompetitionRequest(name=fresh)),
    "ListCompetitions": (Unary, lambda bot, fresh: admin_pb2.ListCompetitionsRequest()),
    "StartFinals": (Unary, lambda bot, fresh: admin_pb2.GetCompetitionRequest(name=fresh)),
}


def call(world: World, method: str, caller: str) -> grpc.StatusCode:
    """Make the call as this caller; the status it ended with (OK when it went through)."""
    owner = {"own": world.ann, "other": world.ben, "admin": world.ann, "anyone": world.ann}[caller]
    bot = world.bot(owner)
    fresh = f"fresh-{next(world.counter)}"
    shape, build = REQUESTS[method]
    token = world.tokens[caller]
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with grpc.insecure_channel(world.server.address) as channel:
        stub = getattr(admin_pb2_grpc.AdminStub(channel), method)
        try:
            if shape == Unary:
                answer = stub(build(bot, fresh), metadata=metadata, timeout=120)
                if method == "RotateMyToken":  # ann's old token stops working: the world takes the new
                    world.tokens.update(dict.fromkeys(("own", "other"), answer.token))
            elif shape == ServerStream:
                for _ in stub(build(bot, fresh), metadata=metadata, timeout=120):
                    break
            elif shape == BidiStream:
                for _ in stub(iter(build(bot, fresh)), metadata=metadata, timeout=120):
                    break
            else:
                stub(iter(build(bot, fresh)), metadata=metadata, timeout=120)
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def test_the_page_the_code_and_the_service_name_the_same_calls() -> None:
    service = admin_pb2.DESCRIPTOR.services_by_name["Admin"]
    assert set(TABLE) == {method.name for method in service.methods}
    assert set(TABLE) == set(PERMISSIONS) == set(REQUESTS)


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("method", sorted(TABLE))
def test_every_call_as_every_caller(world: World, method: str, caller: str) -> None:
    status = call(world, method, caller)
    assert status != grpc.StatusCode.UNIMPLEMENTED, f"{method} is not served"
    if TABLE[method][caller]:
        assert status not in REFUSED, f"{method} as {caller}: refused ({status.name}), the table says yes"
    else:
        assert status in REFUSED, f"{method} as {caller}: went through ({status.name}), the table says no"


def test_a_refused_call_changes_nothing(world: World) -> None:
    db = world.server.server.db
    target = world.bot(world.ben)
    for caller in ("anyone", "other"):
        for method, request in (
            ("SetBotEnabled", admin_pb2.SetBotEnabledRequest(name=target, enabled=False)),
            ("RemoveBot", admin_pb2.RemoveBotRequest(name=target)),
        ):
            token = world.tokens[caller]
            metadata = (("authorization", f"Bearer {token}"),) if token else ()
            with grpc.insecure_channel(world.server.address) as channel, pytest.raises(grpc.RpcError):
                getattr(admin_pb2_grpc.AdminStub(channel), method)(request, metadata=metadata)
    info = bots.get_bot(db, target)
    assert info.enabled and not info.retired


def test_the_table_is_read_whole() -> None:
    assert len(TABLE) >= 38
    assert TABLE["AddAuthor"] == {"anyone": False, "own": False, "other": False, "admin": True}
    assert TABLE["SetBotEnabled"] == {"anyone": False, "own": True, "other": False, "admin": True}
