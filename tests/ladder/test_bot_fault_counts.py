"""Each bot's faults by reason are kept as matches finish (``botfault``), counting what the fault
policy counts (finished matches, rated or not; never a void one), and revision 0007 fills them from
the matches an older database holds."""

from __future__ import annotations

from pathlib import Path

from ladder_support import TEST_GAME, make_bots
from sqlalchemy import create_engine, text

from kingmaker.ladder.bots.bots import get_bot
from kingmaker.ladder.matches.fault_counts import faults_by_reason
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running, void_match
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.migrate import upgrade


def play(db: Database, names: tuple[str, str], reasons: tuple[EndReason, EndReason]) -> int:
    ticket = mark_running(db, create_match(db, TEST_GAME, list(names), seed=1).match_id)
    seats = tuple(
        SeatOutcome(seat, bot, score=0, rank=seat + 1, end_reason=reason, detail=reason.value)
        for seat, (bot, reason) in enumerate(zip(ticket.bot_ids, reasons, strict=True))
    )
    finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))
    return ticket.match_id


def counts(db: Database, name: str) -> dict[str, tuple[int, int]]:
    with db.read() as session:
        rows = faults_by_reason(session, get_bot(db, name).id)
        return {row.reason: (row.count, row.last_match_id) for row in rows}


def test_faults_are_counted_by_reason_as_matches_finish(db: Database) -> None:
    make_bots(db, 4)
    ok = EndReason.FINISHED
    first = play(db, ("bot0", "bot1"), (EndReason.TIMEOUT, ok))
    play(db, ("bot0", "bot1"), (ok, ok))
    second = play(db, ("bot0", "bot1"), (EndReason.TIMEOUT, EndReason.CRASHED))
    both = play(db, ("bot2", "bot1"), (EndReason.NEVER_CONNECTED,) * 2)  # unrated: faults still count
    assert counts(db, "bot0") == {"timeout": (2, second)}
    assert counts(db, "bot1") == {"crashed": (1, second), "never_connected": (1, both)}
    assert counts(db, "bot2") == {"never_connected": (1, both)}
    play(db, ("bot2", "bot3"), (EndReason.CRASHED, ok))
    play(db, ("bot2", "bot3"), (EndReason.CRASHED, ok))
    assert list(counts(db, "bot2")) == ["crashed", "never_connected"]  # most frequent first
    # Recording a match again counts nothing; nor does a void match.
    again = (SeatOutcome(0, 1, 0, 1, end_reason=EndReason.TIMEOUT), SeatOutcome(1, 2, 0, 2))
    finish_match(db, MatchOutcome(first, again, "test-1"))
    void_match(
        db, mark_running(db, create_match(db, TEST_GAME, ["bot0", "bot3"], seed=2).match_id).match_id, "x"
    )
    play(db, ("bot3", "bot0"), (EndReason.SEAT_UNFILLED, EndReason.TIMEOUT))  # void: the server's fault
    assert counts(db, "bot0") == {"timeout": (2, second)} and counts(db, "bot3") == {}


def test_revision_0007_counts_the_faults_an_older_database_holds(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    upgrade(engine, "0003")
    now = "2026-11-22 00:00:00.000000"
    with engine.begin() as connection:
        for bot in (1, 2):
            connection.execute(
                text("INSERT INTO bot (id, name, token_hash, enabled, created_at, token_rotated_at)"
                     " VALUES (:id, :name, :hash, 1, :now, :now)"),
                {"id": bot, "name": f"bot{bot}", "hash": f"h{bot}", "now": now},
            )  # fmt: skip
        plays = [
            (1, "finished", ("timeout", "finished")),
            (2, "finished", ("timeout", "crashed")),
            (3, "void", ("timeout", "seat_unfilled")),  # void: not counted
            (4, "finished", ("finished", "never_connected")),
            (5, "running", (None, None)),
        ]
        for match_id, status, reasons in plays:
            connection.execute(
                text("INSERT INTO match (id, ordinal, game, players, seed, options, status, rated,"
                     " created_at) VALUES (:id, 0, 'dice_duel', 2, 1, '{}', :status, 1, :now)"),
                {"id": match_id, "status": status, "now": now},
            )  # fmt: skip
            for seat, reason in enumerate(reasons):
                connection.execute(
                    text("INSERT INTO matchseat (match_id, seat, bot_id, end_reason)"
                         " VALUES (:match, :seat, :bot, :reason)"),
                    {"match": match_id, "seat": seat, "bot": seat + 1, "reason": reason},
                )  # fmt: skip
    upgrade(engine)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT bot_id, reason, count, last_match_id FROM botfault")).all()
    engine.dispose()
    assert sorted(map(tuple, rows)) == [
        (1, "timeout", 2, 2),
        (2, "crashed", 1, 2),
        (2, "never_connected", 1, 4),
    ]
