"""Every list in the admin API comes in bounded pages that, followed token by token, list each
row exactly once; the standings say how many bots there are in all."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.server.background import BackgroundServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

# Paging is ordering and keys: run it on both databases (the server takes $KINGMAKER_DATABASE_URL).
pytestmark = pytest.mark.usefixtures("ladder_url")


def call(server: BackgroundServer, method: str, request: Any) -> Any:
    with grpc.insecure_channel(server.address) as channel:
        metadata = (("authorization", f"Bearer {server.admin_token}"),)
        return getattr(admin_pb2_grpc.AdminStub(channel), method)(request, metadata=metadata)


def every_page(server: BackgroundServer, method: str, field: str, key: str, **request: Any) -> list[str]:
    make = getattr(admin_pb2, f"{method}Request")
    seen: list[str] = []
    token = ""
    while True:
        answer = call(server, method, make(limit=2, page_token=token, **request))
        rows = list(getattr(answer, field))
        assert 0 < len(rows) <= 2
        seen += [str(getattr(row, key)) for row in rows]
        token = answer.next_page_token
        if not token:
            return seen


def test_lists_page_through_every_row_once(server: BackgroundServer) -> None:
    db = server.server.db
    names = [f"bot-{i}" for i in range(5)]
    for name in names:
        bots.register_bot(db, name, ["kingdoms"])
    made = [create_match(db, "kingdoms", names[:2], seed=seed).match_id for seed in range(7)]
    for number in range(3):
        leagues.create_league(db, f"league-{number}", "kingdoms", names[:3], seed=number)
    assert every_page(server, "ListBots", "bots", "name") == names
    matches = every_page(server, "ListMatches", "matches", "match_id", league="")
    assert len(matches) == len(set(matches)) == len(made) + 3 * 3
    assert [int(m) for m in matches] == sorted((int(m) for m in matches), reverse=True), "newest first"
    assert every_page(server, "ListLeagues", "leagues", "name") == ["league-0", "league-1", "league-2"]


def test_standings_come_in_pages_with_the_total(server: BackgroundServer) -> None:
    db = server.server.db
    for i in range(7):
        bots.register_bot(db, f"bot-{i}", ["kingdoms"])
    first = call(server, "GetStandings", admin_pb2.GetStandingsRequest(game="kingdoms", limit=3))
    second = call(server, "GetStandings", admin_pb2.GetStandingsRequest(game="kingdoms", limit=3, offset=3))
    assert first.total == second.total == 7
    assert [row.position for row in first.standings] == [1, 2, 3]
    assert [row.position for row in second.standings] == [4, 5, 6]
    assert not {row.bot for row in first.standings} & {row.bot for row in second.standings}
