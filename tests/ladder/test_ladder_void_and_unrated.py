"""Who gets blamed and who gets rated when a match goes wrong (issue: results you can trust).

- A match in which no seat played rates nobody and credits no win, but its faults still count.
- A seat the server failed to fill voids the match; no bot is faulted for it.
- A league replays a void match, but not forever; a one-off match is never replayed.
"""

from __future__ import annotations

from ladder_support import TEST_GAME, make_bots
from test_ladder_leagues import finish

from kingmaker.ladder.bots.bots import get_bot
from kingmaker.ladder.leagues.leagues import create_league, get_league, next_matches
from kingmaker.ladder.matches.faults import FAULT_LIMIT, recent_faults
from kingmaker.ladder.matches.history import match_summary
from kingmaker.ladder.matches.match_reads import get_match, match_seats
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import MAX_TRIES, finish_match, mark_running, void_interrupted_one_offs
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.ratings.standings import standings
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import MatchStatus


def every_seat(ticket_bot_ids: tuple[int, ...], reason: EndReason) -> tuple[SeatOutcome, ...]:
    return tuple(
        SeatOutcome(seat, bot, score=0, rank=1, end_reason=reason, detail=f"{reason.value} here")
        for seat, bot in enumerate(ticket_bot_ids)
    )


def test_a_match_in_which_no_seat_played_rates_nobody_and_credits_no_win(db: Database) -> None:
    make_bots(db, 2)
    for _ in range(FAULT_LIMIT):
        ticket = mark_running(db, create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1).match_id)
        seats = every_seat(ticket.bot_ids, EndReason.NEVER_CONNECTED)
        report = finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))
        assert (report.status, report.rated, report.rating_changes) == (MatchStatus.FINISHED, False, ())
        summary = match_summary(db, ticket.match_id)
        assert "not rated: no seat played" in (summary.status_reason or "")
        assert all(seat.rank is None for seat in match_seats(db, ticket.match_id))
    # Before the fix both bots were listed with 3 matches, 3 wins and an average rank of 1.
    assert {(row.matches, row.wins, row.mu) for row in standings(db, TEST_GAME)} == {(0, 0, 25.0)}
    # The faults were real, though: bots that never connect are still suspended.
    assert recent_faults_of(db, "bot0") == FAULT_LIMIT
    assert get_bot(db, "bot0").suspended_reason is not None


def recent_faults_of(db: Database, name: str) -> int:
    with db.transaction() as session:
        return recent_faults(session, get_bot(db, name).id)[0]


def test_a_seat_the_server_failed_to_fill_voids_the_match_and_faults_no_one(db: Database) -> None:
    make_bots(db, 2)
    league = create_league(db, "busy", TEST_GAME, ["bot0", "bot1"], seed=3)
    for _ in range(FAULT_LIMIT + 1):
        (ticket,) = next_matches(db, league.id)
        mark_running(db, ticket.match_id)
        seats = (
            SeatOutcome(0, ticket.bot_ids[0], 0, 1, end_reason=EndReason.SEAT_UNFILLED, detail="busy"),
            SeatOutcome(1, ticket.bot_ids[1], 0, 1, end_reason=EndReason.ABORTED, detail="did not start"),
        )
        report = finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))
        assert (report.status, report.rated) == (MatchStatus.VOID, False)
        assert "seat 0 seat_unfilled: busy" in (get_match_reason(db, ticket.match_id))
        if report.replay_match_id is None:
            break
    assert {(row.matches, row.faults) for row in standings(db, TEST_GAME)} == {(0, 0)}
    assert recent_faults_of(db, "bot0") == 0
    assert get_bot(db, "bot0").suspended_reason is None


def get_match_reason(db: Database, match_id: int) -> str:
    return match_summary(db, match_id).status_reason or ""


def test_a_league_replays_a_void_match_up_to_max_tries_then_ends(db: Database) -> None:
    make_bots(db, 2)
    league = create_league(db, "flaky", TEST_GAME, ["bot0", "bot1"], seed=3)
    played = []
    while batch := next_matches(db, league.id):
        (ticket,) = batch
        mark_running(db, ticket.match_id)
        finish(db, ticket, EndReason.ABORTED)
        played.append(ticket)
        assert len(played) <= MAX_TRIES, "a match the server keeps failing must not replay forever"
    assert len(played) == MAX_TRIES
    assert {t.seed for t in played} == {played[0].seed}
    last = match_summary(db, played[-1].match_id)
    assert last.status == MatchStatus.VOID
    assert f"given up after {MAX_TRIES} tries" in (last.status_reason or "")
    assert get_league(db, "flaky").finished


def test_one_off_matches_a_dead_server_left_behind_are_voided_at_start(db: Database) -> None:
    make_bots(db, 2)
    running = mark_running(db, create_match(db, TEST_GAME, ["bot0", "bot1"], seed=1).match_id)
    waiting = create_match(db, TEST_GAME, ["bot0", "bot1"], seed=2)
    league = create_league(db, "kept", TEST_GAME, ["bot0", "bot1"], seed=3)
    (league_match,) = next_matches(db, league.id)
    mark_running(db, league_match.match_id)
    assert void_interrupted_one_offs(db) == 2
    for ticket in (running, waiting):
        assert get_match(db, ticket.match_id).status == MatchStatus.VOID
        assert "server stopped" in get_match_reason(db, ticket.match_id)
    # League matches are the league's to resume, not voided.
    assert get_match(db, league_match.match_id).status == MatchStatus.RUNNING
    assert void_interrupted_one_offs(db) == 0
