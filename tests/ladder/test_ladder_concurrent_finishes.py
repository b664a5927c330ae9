"""Many matches of the same bots finishing at once, from many threads: no rating update is lost,
none is counted twice, and nothing deadlocks (in SQLite and in PostgreSQL).

In PostgreSQL two transactions really run at once: without the row locks on the rating rows, two
finishes that read a bot's rating before either writes it would both write "matches + 1" and one
update would be lost; with the locks taken in seat order instead of one global order, a match of
(a, b) and one of (b, a) would deadlock."""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from ladder_support import TEST_GAME, make_bots
from sqlmodel import col, select

from kingmaker.ladder.leagues.leagues import claim_matches, create_league, get_league
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import FinishReport, MatchOutcome, MatchTicket, SeatOutcome
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Match, MatchSeat, MatchStatus, Rating, RatingHistory

THREADS = 8


def outcome(ticket: MatchTicket, rng: random.Random, faulty_seat: int | None = None) -> MatchOutcome:
    ranks = list(range(1, len(ticket.bot_ids) + 1))
    rng.shuffle(ranks)
    seats = tuple(
        SeatOutcome(
            seat,
            bot_id,
            score=10 - rank,
            rank=rank,
            end_reason=EndReason.CRASHED if seat == faulty_seat else EndReason.FINISHED,
        )
        for seat, (bot_id, rank) in enumerate(zip(ticket.bot_ids, ranks, strict=True))
    )
    return MatchOutcome(ticket.match_id, seats, "test-1")


def all_at_once(calls: list[Callable[[], FinishReport]]) -> list[FinishReport]:
    """Run the calls from ``THREADS`` threads that start together."""
    gate = threading.Barrier(min(THREADS, len(calls)))

    def run(call: Callable[[], FinishReport], index: int) -> FinishReport:
        if index < gate.parties:
            gate.wait(timeout=30)
        return call()

    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(run, calls, range(len(calls)), timeout=120))


def check_every_update_counted(db: Database) -> None:
    """Every rating's counter equals its bot's finished rated seats, and its history counts
    1, 2, ..., n with no number twice (a lost update would write one number twice)."""
    with db.read() as session:
        seats = Counter(
            session.exec(
                select(MatchSeat.bot_id)
                .join(Match)
                .where(Match.status == MatchStatus.FINISHED, col(Match.rated).is_(True))
            ).all()
        )
        ratings = {row.bot_id: row for row in session.exec(select(Rating).where(Rating.game == TEST_GAME))}
        history: dict[int, list[int]] = {}
        for row in session.exec(select(RatingHistory).order_by(col(RatingHistory.id))):
            history.setdefault(row.bot_id, []).append(row.matches)
    assert sum(seats.values()) > 0
    for bot_id, row in ratings.items():
        assert row.matches == seats[bot_id], f"bot {bot_id}: counter {row.matches}, seats {seats[bot_id]}"
        assert sorted(history.get(bot_id, [])) == list(range(1, seats[bot_id] + 1))


def test_concurrent_one_off_finishes_of_shared_bots_lose_no_update(db: Database) -> None:
    rng = random.Random(5)
    names = [bot.name for bot in make_bots(db, 5)]
    tickets = []
    for seed in range(48):
        players = rng.choice([2, 3, 4])
        planned = create_match(db, TEST_GAME, rng.sample(names, players), seed=seed)
        tickets.append(mark_running(db, planned.match_id))
    outcomes = [outcome(ticket, rng) for ticket in tickets]
    reports = all_at_once([lambda o=o: finish_match(db, o) for o in outcomes])
    assert all(report.status == MatchStatus.FINISHED and not report.already_recorded for report in reports)
    check_every_update_counted(db)


def test_the_same_result_sent_many_times_at_once_counts_once(db: Database) -> None:
    make_bots(db, 2)
    ticket = mark_running(db, create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1).match_id)
    result = outcome(ticket, random.Random(1))
    reports = all_at_once([lambda: finish_match(db, result)] * THREADS)
    assert sum(not report.already_recorded for report in reports) == 1
    check_every_update_counted(db)


def test_a_league_finishing_on_many_threads_counts_everything_and_closes(db: Database) -> None:
    rng = random.Random(9)
    names = [bot.name for bot in make_bots(db, 6)]
    league = create_league(db, "busy", TEST_GAME, names, players=3, seed=3)
    tickets = claim_matches(db, league.id, 100)
    assert len(tickets) == 20  # every group of 3 of 6 bots
    # A few seats crash: their bots' fault counters and suspension checks race too.
    outcomes = [outcome(t, rng, faulty_seat=0 if i % 7 == 0 else None) for i, t in enumerate(tickets)]
    reports = all_at_once([lambda o=o: finish_match(db, o) for o in outcomes])
    assert {report.status for report in reports} == {MatchStatus.FINISHED}
    check_every_update_counted(db)
    with db.read() as session:
        faults = {row.bot_id: row.faults for row in session.exec(select(Rating))}
    crashed = Counter(o.seats[0].bot_id for i, o in enumerate(outcomes) if i % 7 == 0)
    assert faults == {bot_id: crashed[bot_id] for bot_id in faults}
    # The last two matches to finish each saw the other still running unless they took turns.
    assert get_league(db, "busy").finished
