"""What may be shown of a match: its secrets once it and every match sharing its game and seed are
over; its live board only while it is the one match of its seed in play (issue 23, item 2)."""

from __future__ import annotations

import pytest
from ladder_support import TEST_GAME, make_bots

from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.leagues.leagues import create_league, next_matches
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running, void_match
from kingmaker.ladder.matches.secrecy import live_verdict, secrets_verdict
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import MatchOutcome, MatchTicket, SeatOutcome
from kingmaker.ladder.storage.db import Database


def finish(db: Database, ticket: MatchTicket) -> None:
    seats = tuple(SeatOutcome(seat, bot, 0, seat + 1) for seat, bot in enumerate(ticket.bot_ids))
    finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))


def test_a_duplicate_twin_shows_nothing_until_every_twin_is_over(db: Database) -> None:
    make_bots(db, 2)
    league = create_league(db, "dup", TEST_GAME, ["bot0", "bot1"], duplicate=True, seed=5)
    first, second = next_matches(db, league.id, 2)
    assert first.seed == second.seed and first.duplicate_group == second.duplicate_group
    mark_running(db, first.match_id)
    assert live_verdict(db, first.match_id).shown is False  # its twin waits: its draws are the same
    assert "is not over" in live_verdict(db, first.match_id).reason
    finish(db, first)
    mark_running(db, second.match_id)
    verdict = secrets_verdict(db, first.match_id)
    assert not verdict.shown and "once it is" in verdict.reason
    assert live_verdict(db, second.match_id).shown  # the one of its seed still in play
    assert not secrets_verdict(db, second.match_id).shown  # running: nothing yet
    finish(db, second)
    assert secrets_verdict(db, first.match_id).shown and secrets_verdict(db, second.match_id).shown
    assert not live_verdict(db, second.match_id).shown  # over: the replay, not the live board


def test_matches_sharing_a_seed_in_other_leagues_or_none_count_and_a_void_replay_too(db: Database) -> None:
    make_bots(db, 3)
    one_off = create_match(db, TEST_GAME, ["bot0", "bot1"], seed=9)
    other = create_match(db, TEST_GAME, ["bot1", "bot2"], seed=9)  # scheduled, same seed
    unrelated = create_match(db, TEST_GAME, ["bot0", "bot2"], seed=10)
    finish(db, mark_running(db, one_off.match_id))
    assert not secrets_verdict(db, one_off.match_id).shown
    finish(db, mark_running(db, unrelated.match_id))
    assert secrets_verdict(db, unrelated.match_id).shown
    void_match(db, mark_running(db, other.match_id).match_id, "the server stopped")
    assert secrets_verdict(db, one_off.match_id).shown  # a one-off void match is not replayed
    league = create_league(db, "again", TEST_GAME, ["bot0", "bot1"], seed=5)
    [ticket] = next_matches(db, league.id, 1)
    mark_running(db, ticket.match_id)
    seats = tuple(
        SeatOutcome(s, b, 0, 1, end_reason=EndReason.SEAT_UNFILLED) for s, b in enumerate(ticket.bot_ids)
    )
    finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))  # void: replayed, same seed
    twin = create_match(db, TEST_GAME, ["bot0", "bot2"], seed=ticket.seed)
    finish(db, mark_running(db, twin.match_id))
    assert not secrets_verdict(db, twin.match_id).shown  # the league's replay of that seed waits


def test_a_match_that_is_not_there_is_not_found(db: Database) -> None:
    with pytest.raises(NotFoundError):
        secrets_verdict(db, 12345)
    with pytest.raises(NotFoundError):
        live_verdict(db, 12345)
