"""Writers that change a bot's ratings, its ladder rows (``leaguebot``) and its own row take them
in the order a match's result does, so none of them can deadlock with a result in PostgreSQL.

The result's order is recorded from a real result (a seat that crashed, so its bot's row is
locked too); each other writer's order is recorded the same way and checked against it. Only
PostgreSQL locks rows (SQLite locks the whole file), so these run there."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from ladder_support import TEST_GAME, make_bots, suspend
from sqlalchemy import event

from kingmaker.ladder.bots.bots import edit_bot, get_bot, register_bot, reinstate, set_enabled
from kingmaker.ladder.leagues.leagues import create_league
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database, open_database

TABLES = ("rating", "leaguebot", "bot")


@pytest.fixture
def pg(postgres_url: str) -> Any:
    database = open_database(postgres_url)
    yield database
    database.close()


def first_locks(db: Database, call: Callable[[], object]) -> list[str]:
    """The order in which ``call`` first locks rows of each of ``TABLES``: by UPDATE, or by
    SELECT ... FOR UPDATE."""
    seen: list[str] = []

    def note(connection: Any, cursor: Any, statement: str, *rest: Any) -> None:
        text = " ".join(statement.split())
        found = re.match(r'UPDATE "?(\w+)"?', text)
        if found is None and " FOR UPDATE" in text:
            found = re.search(r'FROM "?(\w+)"?', text)
        if found is not None and found.group(1) in TABLES and found.group(1) not in seen:
            seen.append(found.group(1))

    event.listen(db.engine, "before_cursor_execute", note)
    try:
        call()
    finally:
        event.remove(db.engine, "before_cursor_execute", note)
    return seen


def consistent(order: list[str], reference: list[str]) -> bool:
    return order == [table for table in reference if table in order]


def test_every_writer_of_a_bots_rows_takes_them_in_the_order_a_result_does(pg: Database) -> None:
    (other,) = make_bots(pg, 1)
    register_bot(pg, "managed", [TEST_GAME], command=["python3", "old.py"])
    create_league(pg, "open", TEST_GAME, ["managed", other.name], format="ladder", seed=1)
    managed = get_bot(pg, "managed").id
    ticket = create_match(pg, TEST_GAME, ["managed", other.name], seed=2)
    mark_running(pg, ticket.match_id)
    crashed = MatchOutcome(
        ticket.match_id,
        (
            SeatOutcome(0, managed, score=0, rank=2, end_reason=EndReason.CRASHED),
            SeatOutcome(1, other.id, score=1, rank=1),
        ),
        "test-1",
    )
    result = first_locks(pg, lambda: finish_match(pg, crashed))
    assert result == ["rating", "leaguebot", "bot"], "the reference: what a result locks, in order"

    set_enabled(pg, "managed", False)
    orders = {"enable": first_locks(pg, lambda: set_enabled(pg, "managed", True))}
    suspend(pg, "managed")
    orders["reinstate"] = first_locks(pg, lambda: reinstate(pg, "managed"))
    orders["new command"] = first_locks(pg, lambda: edit_bot(pg, "managed", command=["python3", "new.py"]))
    suspend(pg, "managed")
    orders["new command, suspended"] = first_locks(
        pg, lambda: edit_bot(pg, "managed", command=["python3", "newer.py"])
    )
    assert orders["new command, suspended"] == ["rating", "leaguebot", "bot"], orders
    assert {name: order for name, order in orders.items() if not consistent(order, result)} == {}
