"""A match's life: written before it starts, finished once in one transaction, voided and replayed
on a server fault, faults ranked last and counted toward suspension, nothing lost or doubled."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from ladder_support import TEST_GAME, make_bots, snapshot

from kingmaker.ladder.bots.bots import authenticate, get_bot, register_bot, reinstate
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, NotFoundError
from kingmaker.ladder.matches.bot_stats import bot_record
from kingmaker.ladder.matches.faults import FAULT_LIMIT, FAULT_WINDOW
from kingmaker.ladder.matches.history import match_summary
from kingmaker.ladder.matches.match_reads import get_match, match_log, match_seats
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running, void_match
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.ratings.ratings import rate
from kingmaker.ladder.ratings.standings import rating_history, standings
from kingmaker.ladder.records import MatchOutcome, MatchTicket, SeatOutcome
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import MatchStatus


def outcome(
    ticket: MatchTicket,
    ranks: list[int],
    reasons: dict[int, EndReason] | None = None,
    stderr: str = "",
) -> MatchOutcome:
    reasons = reasons or {}
    return MatchOutcome(
        match_id=ticket.match_id,
        seats=tuple(
            SeatOutcome(
                seat=seat,
                bot_id=bot_id,
                score=10 - ranks[seat],
                rank=ranks[seat],
                strikes=1 if seat in reasons else 0,
                end_reason=reasons.get(seat, EndReason.FINISHED),
                detail="crashed with exit code 3" if seat in reasons else "",
                stderr_tail=stderr if seat in reasons else "",
            )
            for seat, bot_id in enumerate(ticket.bot_ids)
        ),
        rules_edition="test-1",
        actions=[{"0": {"type": "Roll", "dice": 2}}, {"1": {"type": "Roll", "dice": 5}}],
        digests=[["aa", "bb"], ["cc"]] + [[] for _ in ticket.bot_ids[2:]],
        timings={"duration_s": 1.5},
    )


def play(db: Database, names: list[str], ranks: list[int], **kwargs: object) -> MatchTicket:
    ticket = create_match(db, TEST_GAME, names, seed=7)
    mark_running(db, ticket.match_id)
    finish_match(db, outcome(ticket, ranks, **kwargs))  # type: ignore[arg-type]
    return ticket


def test_a_match_is_written_before_it_runs_and_finished_in_full(db: Database) -> None:
    bots = make_bots(db, 2)
    ticket = create_match(db, TEST_GAME, ["bot0", "bot1"], seed=99, options={"target": 20})
    assert ticket.status == MatchStatus.SCHEDULED
    assert ticket.bot_ids == (bots[0].id, bots[1].id)
    assert ticket.options == {"target": 20}
    assert mark_running(db, ticket.match_id).status == MatchStatus.RUNNING
    report = finish_match(db, outcome(ticket, [1, 2]))
    assert report.status == MatchStatus.FINISHED
    assert report.ranks == (1, 2)
    assert not report.already_recorded
    seats = match_seats(db, ticket.match_id)
    assert [(s.rank, s.score, s.end_reason) for s in seats] == [
        (1, 9, EndReason.FINISHED),
        (2, 8, EndReason.FINISHED),
    ]
    log = match_log(db, ticket.match_id)
    assert (log.seed, log.options, log.rules_edition) == (99, {"target": 20}, "test-1")
    assert log.actions[1] == {"1": {"type": "Roll", "dice": 5}}
    assert log.digests[0] == ["aa", "bb"]


def test_options_default_and_bad_options_are_refused(db: Database) -> None:
    make_bots(db, 2)
    assert create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1).options == {"target": 10}
    before = snapshot(db)
    with pytest.raises(InvalidRequestError, match="no option 'speed'"):
        create_match(db, TEST_GAME, ["bot0", "bot1"], options={"speed": 3})
    with pytest.raises(InvalidRequestError, match="2 to 5 players"):
        create_match(db, TEST_GAME, ["bot0"])
    with pytest.raises(InvalidRequestError, match="only one seat"):
        create_match(db, TEST_GAME, ["bot0", "bot0"])
    with pytest.raises(NotFoundError, match="ghost"):
        create_match(db, TEST_GAME, ["bot0", "ghost"])
    assert snapshot(db) == before


def test_finishing_twice_counts_once(db: Database) -> None:
    make_bots(db, 2)
    ticket = create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1)
    mark_running(db, ticket.match_id)
    first = finish_match(db, outcome(ticket, [1, 2]))
    after_first = snapshot(db)
    second = finish_match(db, outcome(ticket, [2, 1]))
    assert second.already_recorded
    assert second.ranks == first.ranks
    assert snapshot(db) == after_first


def test_finishing_the_same_match_from_many_threads_counts_once(db: Database) -> None:
    make_bots(db, 3)
    ticket = create_match(db, TEST_GAME, ["bot0", "bot1", "bot2"], seed=1)
    mark_running(db, ticket.match_id)
    with ThreadPoolExecutor(4) as pool:
        reports = list(pool.map(lambda _: finish_match(db, outcome(ticket, [1, 2, 3])), range(8)))
    assert sum(not report.already_recorded for report in reports) == 1
    assert [row.matches for row in standings(db, TEST_GAME)] == [1, 1, 1]


def test_many_matches_finishing_in_parallel_all_count(db: Database) -> None:
    make_bots(db, 4)
    tickets = [create_match(db, TEST_GAME, ["bot0", "bot1", "bot2", "bot3"], seed=n) for n in range(12)]

    def run(ticket: MatchTicket) -> None:
        mark_running(db, ticket.match_id)
        finish_match(db, outcome(ticket, [1, 2, 3, 4]))

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(run, tickets))
    table = standings(db, TEST_GAME)
    assert {row.matches for row in table} == {12}
    assert table[0].bot == "bot0"
    assert table[0].wins == 12
    history = rating_history(db, TEST_GAME, top=4)
    assert [point.matches for point in history["bot0"]] == list(range(1, 13))


def test_ratings_counters_and_history_come_from_the_result(db: Database) -> None:
    make_bots(db, 5)
    play(db, ["bot0", "bot1", "bot2", "bot3"], [1, 2, 2, 4])
    default = (25.0, 25.0 / 3)
    expected = rate(TEST_GAME, [default] * 4, [1, 2, 2, 4])
    rows = {row.bot: row for row in standings(db, TEST_GAME)}
    for index in range(4):
        row = rows[f"bot{index}"]
        assert (row.mu, row.sigma) == pytest.approx(expected[index])
        assert row.conservative == pytest.approx(row.mu - 3 * row.sigma)
        assert row.matches == 1
    assert rows["bot0"].wins == 1
    assert rows["bot1"].average_rank == 2.0
    # Only seats that played change: bot4 sat this one out.
    assert (rows["bot4"].mu, rows["bot4"].sigma, rows["bot4"].matches) == (*default, 0)
    assert rating_history(db, TEST_GAME, top=5)["bot4"] == []
    ordered = [row.conservative for row in standings(db, TEST_GAME)]
    assert ordered == sorted(ordered, reverse=True)


def test_a_faulty_seat_ranks_last_even_if_it_was_ahead(db: Database) -> None:
    make_bots(db, 3)
    ticket = create_match(db, TEST_GAME, ["bot0", "bot1", "bot2"], seed=3)
    mark_running(db, ticket.match_id)
    report = finish_match(db, outcome(ticket, [1, 2, 3], reasons={0: EndReason.TIMEOUT}))
    assert report.ranks == (3, 1, 2)
    seats = match_seats(db, ticket.match_id)
    assert (seats[0].game_rank, seats[0].rank, seats[0].end_reason) == (1, 3, EndReason.TIMEOUT)
    rows = {row.bot: row for row in standings(db, TEST_GAME)}
    assert rows["bot0"].mu < 25.0
    assert rows["bot0"].faults == 1
    assert rows["bot1"].wins == 1


def test_a_server_fault_voids_a_one_off_match_without_a_replay(db: Database) -> None:
    make_bots(db, 2)
    ticket = create_match(db, TEST_GAME, ["bot0", "bot1"], seed=5)
    mark_running(db, ticket.match_id)
    before = [(row.mu, row.matches) for row in standings(db, TEST_GAME)]
    report = finish_match(db, outcome(ticket, [1, 2], reasons={1: EndReason.ABORTED}))
    assert (report.status, report.rated) == (MatchStatus.VOID, False)
    # Nothing would play a replay of a one-off match: its caller is told it was void instead.
    assert report.replay_match_id is None
    assert [(row.mu, row.matches) for row in standings(db, TEST_GAME)] == before
    assert get_match(db, ticket.match_id).status == MatchStatus.VOID
    again = finish_match(db, outcome(ticket, [1, 2]))
    assert again.already_recorded
    assert again.status == MatchStatus.VOID


def test_void_match_by_the_server(db: Database) -> None:
    make_bots(db, 2)
    ticket = create_match(db, TEST_GAME, ["bot0", "bot1"], seed=5)
    report = void_match(db, ticket.match_id, "server shutting down")
    assert report.status == MatchStatus.VOID
    assert report.replay_match_id is None
    assert "not replayed" in (match_summary(db, ticket.match_id).status_reason or "")


def test_bad_outcomes_are_refused_and_change_nothing(db: Database) -> None:
    make_bots(db, 3)
    ticket = create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1)
    mark_running(db, ticket.match_id)
    good = outcome(ticket, [1, 2])
    wrong_bot = MatchOutcome(
        ticket.match_id,
        (good.seats[0], SeatOutcome(seat=1, bot_id=ticket.bot_ids[0] + 2, score=0, rank=2)),
        "test-1",
    )
    missing_seat = MatchOutcome(ticket.match_id, good.seats[:1], "test-1")
    bad_rank = MatchOutcome(
        ticket.match_id, (good.seats[0], SeatOutcome(1, ticket.bot_ids[1], 0, rank=7)), "test-1"
    )
    before = snapshot(db)
    for bad, words in [(wrong_bot, "is bot"), (missing_seat, "seats"), (bad_rank, "rank 7")]:
        with pytest.raises(InvalidRequestError, match=words):
            finish_match(db, bad)
    with pytest.raises(NotFoundError):
        finish_match(db, MatchOutcome(12345, good.seats, "test-1"))
    with pytest.raises(ConflictError, match="running"):
        mark_running(db, ticket.match_id)
    assert snapshot(db) == before


def test_repeated_faults_suspend_the_bot_with_a_readable_reason(db: Database) -> None:
    make_bots(db, 2)
    _, token = register_bot(db, "crashy", [TEST_GAME])
    waiting = create_match(db, TEST_GAME, ["crashy", "bot1"], seed=1)
    for n in range(FAULT_LIMIT):
        assert get_bot(db, "crashy").suspended_reason is None
        play(db, ["crashy", "bot0"], [2, 1], reasons={0: EndReason.CRASHED}, stderr=f"Traceback {n}")
    bot = get_bot(db, "crashy")
    assert bot.suspended_reason is not None
    assert f"{FAULT_LIMIT} faults in its last {FAULT_LIMIT} matches" in bot.suspended_reason
    assert "crashed" in bot.suspended_reason
    assert "exit code 3" in bot.suspended_reason
    assert bot.suspended_stderr == f"Traceback {FAULT_LIMIT - 1}"
    assert not bot.active
    # Still authenticates (so it can be told why), but its waiting match is cancelled.
    assert authenticate(db, token) is not None
    assert get_match(db, waiting.match_id).status == MatchStatus.CANCELLED
    with pytest.raises(ConflictError, match="cancelled"):
        finish_match(db, outcome(waiting, [1, 2]))
    assert reinstate(db, "crashy").active


def test_faults_spread_over_more_than_the_window_do_not_suspend(db: Database) -> None:
    make_bots(db, 2)
    register_bot(db, "flaky", [TEST_GAME])
    clean_between = FAULT_WINDOW - FAULT_LIMIT + 1
    for _ in range(FAULT_LIMIT):
        play(db, ["flaky", "bot0"], [2, 1], reasons={0: EndReason.DISCONNECTED})
        for _ in range(clean_between):
            play(db, ["flaky", "bot0"], [1, 2])
    assert get_bot(db, "flaky").suspended_reason is None


def test_concurrent_callers_each_get_their_own_transaction(db: Database) -> None:
    make_bots(db, 2)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            for _ in range(5):
                play(db, ["bot0", "bot1"], [1, 2])
                standings(db, TEST_GAME)
        except BaseException as error:  # collected for the assertion below
            errors.append(error)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert [row.matches for row in standings(db, TEST_GAME)] == [20, 20]


def test_reinstating_starts_the_fault_window_afresh(db: Database) -> None:
    make_bots(db, 2)
    register_bot(db, "crashy", [TEST_GAME])
    for _ in range(FAULT_LIMIT):
        play(db, ["crashy", "bot0"], [2, 1], reasons={0: EndReason.CRASHED})
    assert get_bot(db, "crashy").suspended_reason is not None
    reinstate(db, "crashy")
    # Before, the window still held the faults that suspended it: one more suspended it again.
    for _ in range(FAULT_LIMIT - 1):
        play(db, ["crashy", "bot0"], [2, 1], reasons={0: EndReason.CRASHED})
    assert get_bot(db, "crashy").suspended_reason is None
    play(db, ["crashy", "bot0"], [2, 1], reasons={0: EndReason.CRASHED})
    assert get_bot(db, "crashy").suspended_reason is not None


def test_the_suspension_and_the_last_fault_name_the_same_match(db: Database) -> None:
    make_bots(db, 2)
    register_bot(db, "crashy", [TEST_GAME])
    # Matches played at once finish out of the order of their ids: the last to finish is the
    # lowest id here.
    tickets = [create_match(db, TEST_GAME, ["crashy", "bot0"], seed=n) for n in range(FAULT_LIMIT)]
    for ticket in reversed(tickets):
        mark_running(db, ticket.match_id)
        finish_match(db, outcome(ticket, [2, 1], reasons={0: EndReason.CRASHED}))
    suspension = get_bot(db, "crashy").suspended_reason
    assert suspension is not None and f"the last in match {tickets[0].match_id}:" in suspension
    last = bot_record(db, "crashy").last_fault
    assert last is not None and last.match_id == tickets[0].match_id
