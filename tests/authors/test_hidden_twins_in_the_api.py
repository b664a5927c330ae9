"""The Admin API keeps the website's rule (ladder/matches/secrecy.py) for everyone but the admin: while a
match, or a match sharing its seed, is not over, GetMatch and ListMatches give no seed, no
decision, no digest and no seat log of it. Authors now read matches through the API, so a
finished duplicate twin must not tell them the draws of the twin still being played."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from web_support import play_and_record

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.leagues.leagues import create_league, next_matches
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.server.background import BackgroundServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc


@pytest.fixture
def twins(server: BackgroundServer) -> dict[str, Any]:
    db = server.server.db
    for name in ("ada", "brick"):
        register_bot(db, name, ["kingdoms"])
    league = create_league(db, "dup", "kingdoms", ["ada", "brick"], players=2, duplicate=True, seed=4)
    first, second = next_matches(db, league.id, 2)
    assert first.seed == second.seed
    play_and_record(db, first, seed=1)
    mark_running(db, second.match_id)
    return {"server": server, "first": first, "second": second}


def calls(server: BackgroundServer, token: str | None, match_id: int) -> tuple[Any, Any]:
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        shown = admin.GetMatch(admin_pb2.GetMatchRequest(match_id=str(match_id)), metadata=metadata)
        listed = admin.ListMatches(admin_pb2.ListMatchesRequest(league="dup"), metadata=metadata)
    return shown, next(record for record in listed.matches if record.match_id == str(match_id))


def test_a_finished_twin_tells_nobody_but_the_admin_its_seed_while_the_other_plays(
    twins: dict[str, Any],
) -> None:
    server, first = twins["server"], twins["first"]
    shown, listed = calls(server, None, first.match_id)
    assert shown.status == "finished" and len(shown.seats) == 2, "its result shows"
    assert shown.seed == 0 and not shown.decisions and not shown.observation_digests and not shown.revealed
    assert "shares this match's seed and is not over" in shown.status_reason
    assert listed.seed == 0 and not listed.revealed
    shown, listed = calls(server, server.admin_token, first.match_id)
    assert shown.seed == first.seed and shown.decisions and shown.revealed, "the admin sees everything"
    assert listed.seed == first.seed


def test_once_every_twin_is_over_the_seed_shows_to_anyone(twins: dict[str, Any]) -> None:
    server, first, second = twins["server"], twins["first"], twins["second"]
    play_and_record(server.server.db, second, seed=2, already_running=True)
    shown, listed = calls(server, None, first.match_id)
    assert shown.seed == first.seed and shown.decisions and shown.revealed
    assert listed.seed == first.seed and listed.revealed
