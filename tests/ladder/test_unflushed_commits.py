"""Which commits wait for the disk (``Database.transaction(flushed=...)``): a match's claim and its
result do not (a restart replays a match whose claim or result a power cut lost); every other
write does, on SQLite and on PostgreSQL, also on a pooled connection an unflushed one used before."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from ladder_support import TEST_GAME, make_bots
from sqlalchemy import event
from test_ladder_concurrent_finishes import outcome

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.claims import claim_with_runnables
from kingmaker.ladder.leagues.leagues import create_league
from kingmaker.ladder.records import FinishReport
from kingmaker.ladder.result_batch import finish_matches
from kingmaker.ladder.storage.db import Database


def _level(dbapi_connection: Any, dialect: str) -> str:
    """Whether this connection's current transaction commits flushed, as the database says."""
    if dialect == "sqlite":
        (level,) = dbapi_connection.execute("PRAGMA synchronous").fetchone()
        return {2: "flushed", 1: "unflushed"}.get(level, f"synchronous={level}")
    (level,) = dbapi_connection.execute("SHOW synchronous_commit").fetchone()
    return {"on": "flushed", "off": "unflushed"}.get(level, f"synchronous_commit={level}")


def _rolled_back(db: Database) -> None:
    with db.transaction(flushed=False) as session:
        session.connection()
        raise RuntimeError("rolled back: the next transaction on this connection is flushed all the same")


@pytest.fixture
def commits(db: Database) -> Iterator[list[str]]:
    """How each commit of ``db`` was made, in order (read by the database itself as it commits)."""
    seen: list[str] = []
    dialect = db.engine.dialect.name

    def note(connection: Any) -> None:
        seen.append(_level(connection.connection.driver_connection, dialect))

    def durable(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute("SET synchronous_commit TO on")  # as a server's default is
        dbapi_connection.commit()

    if dialect == "postgresql":  # the tests' own server commits unflushed by default (fast)
        event.listen(db.engine, "connect", durable)
        db.engine.dispose()  # connections opened from now on
    event.listen(db.engine, "commit", note)
    yield seen
    event.remove(db.engine, "commit", note)
    if dialect == "postgresql":
        event.remove(db.engine, "connect", durable)


def test_a_transaction_is_flushed_unless_asked_not_to_be(db: Database, commits: list[str]) -> None:
    for flushed in (True, False, False, True, False, True):
        with db.transaction(flushed=flushed) as session:
            session.connection()  # begun (a session that runs nothing never begins)
    with pytest.raises(RuntimeError, match="rolled back"):
        _rolled_back(db)
    with db.transaction() as session:
        session.connection()
    expected = ["flushed", "unflushed", "unflushed", "flushed", "unflushed", "flushed", "flushed"]
    assert commits == expected


def test_a_leagues_claims_and_results_are_unflushed_and_other_writes_flushed(
    db: Database, commits: list[str]
) -> None:
    names = [bot.name for bot in make_bots(db, 4)]
    league_id = create_league(db, "weekly", TEST_GAME, names, rounds=1).id
    assert commits and set(commits) == {"flushed"}  # the bots and the league's plan
    commits.clear()

    tickets, _ = claim_with_runnables(db, league_id, 2, set())
    assert len(tickets) == 2
    assert commits == ["unflushed"]

    rng = random.Random(3)
    good, refused = outcome(tickets[0], rng), outcome(tickets[1], rng)
    refused = replace(refused, seats=refused.seats[:1])  # a seat missing: refused alone, the batch again
    reports = finish_matches(db, [good, refused])
    assert isinstance(reports[0], FinishReport) and isinstance(reports[1], Exception)
    assert commits[1:] == ["unflushed"]  # the first batch rolled back; the one written again

    register_bot(db, "late-comer", [TEST_GAME])
    assert commits[-1] == "flushed"
