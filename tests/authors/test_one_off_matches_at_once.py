"""An author's one-off matches at once are bounded, as their builds are (issue 43, finding 6):
past the bound ``RunMatch`` and ``Duel`` are refused at once, in one line naming the bound; the
admin's are not bounded. Before, an author could start any number at once, each starting its
bots for itself."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from kingmaker.ladder.errors import BoundReachedError
from kingmaker.ladder.matches import history
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.services.one_off_matches import ONE_OFF_AT_ONCE, OneOffMatches
from kingmaker.server.services.permissions import ADMIN, Caller, Role
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

GAME = "kingdoms"


@pytest.fixture
def waiting_server(kingmaker_home: object) -> Iterator[BackgroundServer]:
    """A server that waits long for a remote bot to connect: a match of remote bots that never
    connect runs until the test ends it."""
    running = BackgroundServer(ServerConfig(address="127.0.0.1:0", connect_timeout=600.0))
    try:
        yield running
    finally:
        running.stop()


def as_(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def running_matches(server: BackgroundServer) -> int:
    return sum(match.status == "running" for match in history.list_matches(server.server.db, limit=50))


def wait_for_running(server: BackgroundServer, count: int) -> None:
    deadline = time.monotonic() + 120
    while running_matches(server) < count:
        assert time.monotonic() < deadline, f"{count} matches did not start"
        time.sleep(0.1)


def test_an_authors_one_off_matches_past_their_bound_are_refused_and_the_admins_are_not(
    waiting_server: BackgroundServer,
) -> None:
    server = waiting_server
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        made = admin.AddAuthor(admin_pb2.AddAuthorRequest(name="dee"), metadata=as_(server.admin_token))
        dee = as_(made.token)
        for name in ("dee-a", "dee-b"):
            admin.AddBot(admin_pb2.AddBotRequest(name=name, games=[GAME]), metadata=dee)
        match = admin_pb2.RunMatchRequest(
            game=GAME, seats=[admin_pb2.MatchSeat(bot="dee-a"), admin_pb2.MatchSeat(bot="dee-b")]
        )
        held: list[Any] = []
        try:
            for count in range(1, ONE_OFF_AT_ONCE + 1):  # remote bots that never connect: they wait
                held.append(admin.RunMatch.future(match, metadata=dee))
                wait_for_running(server, count)
            with pytest.raises(grpc.RpcError) as refused:
                admin.RunMatch(match, metadata=dee, timeout=60)
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert refused.value.details() == (
                f"author dee runs {ONE_OFF_AT_ONCE} one-off matches or duels at once, their bound "
                f"(one-off matches at once: {ONE_OFF_AT_ONCE}): wait for one to end before this match"
            )
            duel = admin_pb2.DuelRequest(game=GAME, a="dee-a", b="dee-b", max_matches=2)
            with pytest.raises(grpc.RpcError) as refused:
                next(iter(admin.Duel(duel, metadata=dee, timeout=60)))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "before this duel" in str(refused.value.details())
            assert running_matches(server) == ONE_OFF_AT_ONCE  # the refused ones started nothing
            held.append(admin.RunMatch.future(match, metadata=as_(server.admin_token)))
            wait_for_running(server, ONE_OFF_AT_ONCE + 1)  # the admin's are not bounded
        finally:
            for call in held:
                call.cancel()


def test_a_place_is_given_back_when_its_match_ends_however_it_ends() -> None:
    places = OneOffMatches(at_once=1)
    ann = Caller(Role.AUTHOR, 7, "ann")
    with pytest.raises(RuntimeError), places.taken(ann, "match"):
        raise RuntimeError("the match broke")
    with places.taken(ann, "match"):
        with pytest.raises(BoundReachedError, match="one-off matches at once: 1"), places.taken(ann, "duel"):
            pass
        with places.taken(ADMIN, "match"):  # the admin's take no place
            pass
    assert places.running == {}
