"""Reads never block writes, and a finished match's result is retried until it is stored.

Before: every transaction began with BEGIN IMMEDIATE, reads too, so a long ListMatches held the
write lock; two rated matches then failed with "database is locked" and their results were lost,
their rows left running forever."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

from ladder_support import TEST_GAME, make_bots
from sqlmodel import select

from kingmaker.ladder.db import open_database
from kingmaker.ladder.history import list_matches
from kingmaker.ladder.matches import create_match, finish_match, get_match, mark_running
from kingmaker.ladder.models import Bot, MatchStatus
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.standings import standings
from kingmaker.server.results import until_stored


def test_a_long_read_does_not_block_a_writer(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'reads.db'}"
    db = open_database(url, busy_timeout_s=0.3)
    make_bots(db, 2)
    reading, done = threading.Event(), threading.Event()

    def long_read() -> None:
        with db.read() as session:
            list(session.exec(select(Bot)))
            reading.set()
            done.wait(10)  # a read that takes its time, as a huge listing would

    reader = threading.Thread(target=long_read)
    reader.start()
    try:
        assert reading.wait(5)
        started = time.monotonic()
        ticket = create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1)  # a write, while the read runs
        assert time.monotonic() - started < 0.3, "the writer did not wait for the reader"
        assert get_match(db, ticket.match_id).status == MatchStatus.SCHEDULED
    finally:
        done.set()
        reader.join()
        db.close()


def test_a_result_is_retried_until_the_database_takes_it(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    db = open_database(f"sqlite:///{path}", busy_timeout_s=0.1)
    make_bots(db, 2)
    ticket = mark_running(db, create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1).match_id)
    seats = tuple(
        SeatOutcome(seat, bot, score=seat, rank=seat + 1) for seat, bot in enumerate(ticket.bot_ids)
    )
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the lock far past the busy timeout

    async def store_while_locked() -> None:
        storing = asyncio.create_task(
            until_stored(finish_match, db, MatchOutcome(ticket.match_id, seats, "t"))
        )
        await asyncio.sleep(1.0)
        assert not storing.done(), "it kept trying instead of giving up"
        blocker.execute("COMMIT")
        report = await asyncio.wait_for(storing, 10)
        assert report.status == MatchStatus.FINISHED and not report.already_recorded

    try:
        asyncio.run(store_while_locked())
    finally:
        blocker.close()
    assert get_match(db, ticket.match_id).status == MatchStatus.FINISHED
    assert sorted(row.matches for row in standings(db, TEST_GAME)) == [1, 1], "counted once"
    assert len(list_matches(db)) == 1
    db.close()
