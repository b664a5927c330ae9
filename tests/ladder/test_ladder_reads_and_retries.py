"""Reads never block writes, and a finished match's result is retried until it is stored.

Before: every transaction began with BEGIN IMMEDIATE, reads too, so a long ListMatches held the
write lock; two rated matches then failed with "database is locked" and their results were lost,
their rows left running forever."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest
from ladder_support import TEST_GAME, make_bots
from postgres_server import Databases
from sqlalchemy.exc import InternalError
from sqlmodel import col, select

from kingmaker.ladder.bots.bots import list_bots
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.matches.match_reads import get_match
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.ratings.standings import standings
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import open_database
from kingmaker.ladder.storage.models import Bot, Match, MatchStatus, Rating
from kingmaker.server.refereeing.results import until_stored


def test_a_long_read_does_not_block_a_writer(database_url: str) -> None:
    db = open_database(database_url, busy_timeout_s=0.3)
    make_bots(db, 2)
    reading, done = threading.Event(), threading.Event()

    def long_read() -> None:
        with db.read() as session:
            list(session.exec(select(Bot)))
            reading.set()
            done.wait(120)  # a read that takes its time, as a huge listing would

    reader = threading.Thread(target=long_read)
    reader.start()
    try:
        assert reading.wait(5)
        ticket = create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1)  # a write, while the read runs
        # Written while the read still holds its transaction: a writer that waited for the reader
        # would have finished only after it (its wait is long), never while it is still open.
        assert not done.is_set() and reader.is_alive(), "the writer waited for the reader"
        assert get_match(db, ticket.match_id).status == MatchStatus.SCHEDULED
    finally:
        done.set()
        reader.join()
        db.close()


def test_a_read_sees_one_snapshot_while_results_are_written(database_url: str) -> None:
    db = open_database(database_url)
    make_bots(db, 2)
    ticket = mark_running(db, create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1).match_id)
    seats = tuple(SeatOutcome(seat, bot, score=0, rank=seat + 1) for seat, bot in enumerate(ticket.bot_ids))
    counters = select(Rating.bot_id, Rating.matches).order_by(col(Rating.bot_id))
    try:
        with db.read() as session:
            before = session.exec(counters).all()
            # The rating rows this read has seen are updated and committed meanwhile ...
            report = finish_match(db, MatchOutcome(ticket.match_id, seats, "t"))
            assert report.status == MatchStatus.FINISHED
            again = session.exec(counters).all()
            statuses = session.exec(select(Match.status)).all()
        # ... and the read still sees the world as it was when it began, whole.
        assert before == again and {matches for _, matches in again} == {0}
        assert statuses == [MatchStatus.RUNNING]
        assert {row.matches for row in standings(db, TEST_GAME)} == {1}
    finally:
        db.close()


def test_postgresql_refuses_a_write_inside_a_read(postgres: Databases) -> None:
    db = open_database(postgres.new_database())
    try:
        with pytest.raises(InternalError, match="read-only transaction"), db.read() as session:  # noqa: PT012
            session.add(Bot(name="sneaky", token_hash="x"))
            session.flush()
        assert list_bots(db) == []
    finally:
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


def test_a_list_of_matches_reads_each_as_its_own_summary_does(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list summarises its matches in rounds of reads for many at once (``_summaries``): each
    summary is the one read for its match alone, in every round, with or without a log."""
    from kingmaker.ladder.matches import history

    monkeypatch.setattr(history, "_AT_ONCE", 2)  # (500 a round: five matches make three rounds)
    db = open_database(database_url)
    make_bots(db, 3)
    for seed in range(5):
        names = ["bot0", "bot1"] if seed % 2 else ["bot2", "bot0"]
        ticket = mark_running(db, create_match(db, TEST_GAME, names, seed=seed).match_id)
        if seed == 3:
            continue  # still running: no log
        seats = tuple(
            SeatOutcome(seat, bot, score=seat + seed, rank=2 - seat)
            for seat, bot in enumerate(ticket.bot_ids)
        )
        think = [[1.5 * seed, 2.0], [0.5]]
        finish_match(db, MatchOutcome(ticket.match_id, seats, "t", timings={"think_ms": think}))
    listed = list_matches(db)
    assert [summary.match_id for summary in listed] == sorted((s.match_id for s in listed), reverse=True)
    assert len(listed) == 5
    assert listed == [history.match_summary(db, summary.match_id) for summary in listed]
    assert [summary.bots for summary in listed] == [
        ("bot0", "bot1") if seed % 2 else ("bot2", "bot0") for seed in reversed(range(5))
    ]
    finished = [summary for summary in listed if summary.status == MatchStatus.FINISHED]
    assert [summary.think[0].decisions for summary in finished] == [2, 2, 2, 2]
    assert [summary.think for summary in listed if summary.status != MatchStatus.FINISHED] == [()]
    db.close()
