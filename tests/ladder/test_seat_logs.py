"""Seat logs, in the ladder: written only for a seat that left something, in the result's own
transaction, and bounded per bot (older matches keep their strikes, not their stderr nor their
output per step)."""

from __future__ import annotations

import dataclasses

import pytest
from ladder_support import TEST_GAME, make_bots

from kingmaker.ladder.matches import seat_logs
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.step_output import StepOutput
from kingmaker.ladder.storage.db import Database


def play(db: Database, names: list[str], first_seat: SeatOutcome) -> int:
    ticket = create_match(db, TEST_GAME, names, seed=3)
    mark_running(db, ticket.match_id)
    seats = (
        dataclasses.replace(first_seat, bot_id=ticket.bot_ids[0]),
        SeatOutcome(seat=1, bot_id=ticket.bot_ids[1], score=1, rank=2),
    )
    finish_match(db, MatchOutcome(match_id=ticket.match_id, seats=seats, rules_edition="test-1"))
    return ticket.match_id


def test_only_a_seat_that_left_something_is_logged(db: Database) -> None:
    a, b = make_bots(db, 2)
    talked = SeatOutcome(seat=0, bot_id=0, score=2, rank=1, stderr="hello\n", stderr_bytes=6)
    match_id = play(db, [a.name, b.name], talked)
    logged = seat_logs.match_logs(db, match_id)
    assert [(log.bot, log.stderr, log.stderr_bytes) for log in logged] == [(a.name, "hello\n", 6)]
    strike = {"request": 7, "kind": "late", "detail": "answered after 2.1 s"}
    quiet = SeatOutcome(seat=0, bot_id=0, score=2, rank=1, strike_log=(strike,), exit="killed by SIGKILL")
    logged = seat_logs.match_logs(db, play(db, [a.name, b.name], quiet))
    assert [(log.strikes, log.exit, log.stderr) for log in logged] == [([strike], "killed by SIGKILL", "")]


def test_a_bots_older_matches_keep_their_strikes_not_their_stderr(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seat_logs, "KEEP_STDERR_MATCHES", 3)
    a, b = make_bots(db, 2)
    strike = {"request": 1, "kind": "illegal", "detail": "no"}
    ids = []
    for number in range(5):
        seat = SeatOutcome(
            seat=0,
            bot_id=0,
            score=2,
            rank=1,
            stderr=f"match {number}\n",
            stderr_bytes=8,
            strike_log=(strike,),
            step_output=(StepOutput(1, f"match {number}\n", 8),),
        )
        ids.append(play(db, [a.name, b.name], seat))
    logs = seat_logs.bot_logs(db, a.name, limit=10)
    assert [log.match_id for log in logs] == ids[::-1], "newest first"
    assert [log.stderr for log in logs] == [
        "match 4\n",
        "match 3\n",
        "match 2\n",
        seat_logs.DROPPED,
        seat_logs.DROPPED,
    ]
    assert all(log.strikes == [strike] and log.stderr_bytes == 8 for log in logs)
    assert [[step.text for step in log.steps] for log in logs] == [
        ["match 4\n"],
        ["match 3\n"],
        ["match 2\n"],
        [],
        [],
    ]
    assert [log.match_id for log in seat_logs.bot_logs(db, a.name, limit=2, before=ids[3])] == [
        ids[2],
        ids[1],
    ]
