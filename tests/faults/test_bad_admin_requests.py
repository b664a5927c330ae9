"""Every admin request is validated at the edge: one line saying what is wrong, nothing written,
and no request can make the server do unbounded work. Each case below was seen to misbehave
before (memory growing by 13 MB/s, UNKNOWN: OverflowError, a voided match reported as OK, a
league "done" with nothing played, names of a megabyte or with a right-to-left override)."""

from __future__ import annotations

import time
from typing import Any

import grpc
import pytest

from kingmaker.ladder.bots import bots
from kingmaker.ladder.storage.db import Database
from kingmaker.server.background import BackgroundServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, common_pb2

pytestmark = pytest.mark.faults


def call(server: BackgroundServer, method: str, request: Any) -> Any:
    with grpc.insecure_channel(server.address) as channel:
        metadata = (("authorization", f"Bearer {server.admin_token}"),)
        answer = getattr(admin_pb2_grpc.AdminStub(channel), method)(request, metadata=metadata, timeout=30)
        return list(answer) if method == "RunLeague" else answer


def counts(db: Database) -> tuple[int, ...]:
    with db.engine.connect() as connection:
        return tuple(
            connection.exec_driver_sql(f'SELECT count(*) FROM "{table}"').scalar_one()
            for table in ("league", "match", "matchseat", "bot")
        )


def league(**fields: Any) -> admin_pb2.CreateLeagueRequest:
    return admin_pb2.CreateLeagueRequest(**{"name": "l", "game": "kingdoms", "bots": ["a", "b"], **fields})


def run_match(**control: int) -> admin_pb2.RunMatchRequest:
    seats = [admin_pb2.MatchSeat(bot="a"), admin_pb2.MatchSeat(bot="b")]
    return admin_pb2.RunMatchRequest(
        game="kingdoms", seats=seats, time_control=common_pb2.TimeControl(**control)
    )


BAD = [
    ("CreateLeague", league(rounds=2_147_483_647), "rounds must be from 1 to 1,000"),
    ("CreateLeague", league(seed=2**63), "a seed must be from 0 to 2^63 - 1"),
    ("CreateLeague", league(name=""), "bad league name ''"),
    ("CreateLeague", league(name="x" * (1 << 20)), "(1048576 characters)"),
    ("CreateLeague", league(name="weekly\u202egnp.exe"), "bad league name"),
    ("CreateLeague", league(format="ladder", time_budget_seconds=float("nan")), "time_budget_s must be"),
    ("CreateLeague", league(format="ladder", time_budget_seconds=float("inf")), "time_budget_s must be"),
    ("CreateLeague", league(format="ladder", max_matches=10**9), "max_matches must be from 1"),
    ("RunMatch", run_match(bank_ms=2**32 - 1), "bank_ms must be from 0 to 3,600,000"),
    ("RunMatch", run_match(decision_ms=2**31 - 1), "decision_ms must be from 0 to 600,000"),
    ("RunMatch", run_match(max_strikes=10**6), "max_strikes must be from 0 to 100"),
    ("GetMatch", admin_pb2.GetMatchRequest(match_id="1" * 23), "no match '11111111111111111111111'"),
    ("ListMatches", admin_pb2.ListMatchesRequest(limit=10**6), "at most 1000 rows a request"),
    ("RunLeague", admin_pb2.RunLeagueRequest(name="ok", concurrency=-1), "concurrency must be from 1 to 256"),
]


@pytest.mark.parametrize(("method", "request_", "said"), BAD, ids=[f"{m}-{s[:24]}" for m, _, s in BAD])
def test_a_bad_request_gets_one_line_and_changes_nothing(
    server: BackgroundServer, method: str, request_: Any, said: str
) -> None:
    db = server.server.db
    for name in ("a", "b"):
        bots.register_bot(db, name, ["kingdoms"])
    call(server, "CreateLeague", league(name="ok"))
    before = counts(db)
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as refused:
        call(server, method, request_)
    assert time.monotonic() - started < 10, "refused at the edge, not after doing the work"
    assert refused.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND)
    details = refused.value.details() or ""
    assert said in details and "\n" not in details
    assert counts(db) == before


def test_a_plan_too_large_to_make_up_front_is_refused_by_its_size(server: BackgroundServer) -> None:
    db = server.server.db
    names = [f"b{i}" for i in range(40)]
    for name in names:
        bots.register_bot(db, name, ["kingdoms"])
    before = counts(db)
    request = admin_pb2.CreateLeagueRequest(name="huge", game="kingdoms", bots=names, players=4, rounds=1)
    with pytest.raises(grpc.RpcError) as refused:
        call(server, "CreateLeague", request)  # 91,390 groups of 4 from 40 bots
    assert "that plan has 91,390 matches, more than the 10,000" in (refused.value.details() or "")
    assert counts(db) == before
