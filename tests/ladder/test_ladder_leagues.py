"""Leagues in the database: plans written up front, handed out in order, resumed after a crash,
re-run from their seeds; continuous ladders planned on demand."""

from __future__ import annotations

from collections import Counter

import pytest
from ladder_support import TEST_GAME, make_bots, snapshot
from sqlalchemy import text

from kingmaker.games.serial import action_from_data
from kingmaker.ladder.bots.bots import register_bot, set_enabled
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, LadderError, NotFoundError
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.ladder.leagues.league_lifecycle import rerun_league, resume_league
from kingmaker.ladder.leagues.leagues import claim_matches, create_league, get_league, next_matches
from kingmaker.ladder.matches.match_reads import get_match, match_log
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.ratings.standings import standings
from kingmaker.ladder.records import MatchOutcome, MatchTicket, SeatOutcome, actions_to_data
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import MatchStatus


def finish(db: Database, ticket: MatchTicket, reason: EndReason = EndReason.FINISHED) -> None:
    seats = tuple(
        SeatOutcome(seat, bot, score=seat, rank=len(ticket.bot_ids) - seat, end_reason=reason)
        for seat, bot in enumerate(ticket.bot_ids)
    )
    finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))


def run_all(db: Database, league_id: int) -> int:
    played = 0
    while batch := next_matches(db, league_id, limit=3):
        for ticket in batch:
            mark_running(db, ticket.match_id)
            finish(db, ticket)
            played += 1
    return played


def test_a_round_robin_is_planned_in_full_and_finishes(db: Database) -> None:
    make_bots(db, 4)
    league = create_league(db, "rr", TEST_GAME, ["bot0", "bot1", "bot2", "bot3"], seed=1)
    assert league_progress(db, league.id)[MatchStatus.SCHEDULED] == 6
    tickets = next_matches(db, league.id, limit=10)
    assert [t.ordinal for t in tickets] == list(range(6))
    assert run_all(db, league.id) == 6
    assert get_league(db, "rr").finished
    assert {row.matches for row in standings(db, TEST_GAME)} == {3}


def test_duplicate_gauntlet_shares_seeds_across_rotations(db: Database) -> None:
    make_bots(db, 4)
    league = create_league(
        db,
        "g",
        TEST_GAME,
        ["bot1", "bot2", "bot3"],
        format="gauntlet",
        challenger="bot0",
        players=3,
        duplicate=True,
        seed=2,
    )
    tickets = next_matches(db, league.id, limit=100)
    assert len(tickets) == 3 * 3  # three field pairs, three rotations each
    by_group = Counter((t.duplicate_group, t.seed) for t in tickets)
    assert set(by_group.values()) == {3}
    challenger = league.bot_ids[0]
    assert all(challenger in t.bot_ids for t in tickets)


def test_same_seed_same_plan_and_rerun_copies_seeds_and_seats(db: Database) -> None:
    make_bots(db, 5)
    names = [f"bot{i}" for i in range(5)]
    first = create_league(db, "one", TEST_GAME, names, players=3, seed=77)
    second = create_league(db, "two", TEST_GAME, names, players=3, seed=77)
    plan_one = [(t.seed, t.bot_ids) for t in next_matches(db, first.id, limit=100)]
    plan_two = [(t.seed, t.bot_ids) for t in next_matches(db, second.id, limit=100)]
    assert plan_one == plan_two
    run_all(db, first.id)
    again = rerun_league(db, first.id, "one-again")
    assert [(t.seed, t.bot_ids) for t in next_matches(db, again.id, limit=100)] == plan_one
    assert get_league(db, "one").finished
    assert not get_league(db, "one-again").finished


def test_resume_resets_interrupted_matches_and_keeps_finished_ones(db: Database) -> None:
    make_bots(db, 3)
    league = create_league(db, "crashy", TEST_GAME, ["bot0", "bot1", "bot2"], seed=3)
    done, interrupted, untouched = next_matches(db, league.id, limit=3)
    mark_running(db, done.match_id)
    finish(db, done)
    mark_running(db, interrupted.match_id)
    # ... the server dies here ...
    finished_before = snapshot(db)["matchlog"]
    assert resume_league(db, league.id) == 1
    assert get_match(db, interrupted.match_id).status == MatchStatus.SCHEDULED
    assert get_match(db, done.match_id).status == MatchStatus.FINISHED
    assert snapshot(db)["matchlog"] == finished_before
    assert [t.match_id for t in next_matches(db, league.id, limit=5)] == [
        interrupted.match_id,
        untouched.match_id,
    ]
    assert resume_league(db, league.id) == 0
    assert run_all(db, league.id) == 2
    assert {row.matches for row in standings(db, TEST_GAME)} == {2}


def test_a_voided_league_match_is_replayed_before_the_league_ends(db: Database) -> None:
    make_bots(db, 2)
    league = create_league(db, "void", TEST_GAME, ["bot0", "bot1"], seed=3)
    (ticket,) = next_matches(db, league.id)
    mark_running(db, ticket.match_id)
    finish(db, ticket, EndReason.ABORTED)
    assert not get_league(db, "void").finished
    (replay,) = next_matches(db, league.id)
    assert (replay.seed, replay.bot_ids, replay.ordinal) == (ticket.seed, ticket.bot_ids, 0)
    assert run_all(db, league.id) == 1
    assert get_league(db, "void").finished


def test_a_continuous_ladder_plans_on_demand_and_stops_at_its_match_count(db: Database) -> None:
    make_bots(db, 5)
    league = create_league(
        db,
        "ladder",
        TEST_GAME,
        [f"bot{i}" for i in range(5)],
        format="ladder",
        max_matches=20,
        players=2,
        seed=4,
    )
    assert league_progress(db, league.id)[MatchStatus.SCHEDULED] == 0
    assert len(next_matches(db, league.id, limit=4)) == 4
    assert run_all(db, league.id) == 20
    assert get_league(db, "ladder").finished
    counts = {row.bot: row.matches for row in standings(db, TEST_GAME)}
    assert sum(counts.values()) == 40
    # Opponents are drawn (so that pairings mix), not simply the least played: counts stay within
    # two of each other rather than one.
    assert max(counts.values()) - min(counts.values()) <= 2


def test_a_disabled_bot_leaves_the_ladder_pool(db: Database) -> None:
    make_bots(db, 3)
    league = create_league(
        db, "pool", TEST_GAME, ["bot0", "bot1", "bot2"], format="ladder", max_matches=12, seed=9
    )
    set_enabled(db, "bot2", False)
    tickets = next_matches(db, league.id, limit=5)
    bot2 = league.bot_ids[2]
    assert tickets
    assert all(bot2 not in t.bot_ids for t in tickets)


def test_a_claim_whose_matches_are_all_cancelled_looks_past_them(db: Database) -> None:
    """A claim cancels a match it chose whose bot may no longer play. When it cancelled every
    match it chose and claimed none, the scheduler, with nothing in play, took the league as
    played out and stopped it with matches left unplayed (the scheduler's chaos test on
    PostgreSQL, a bot disabled for a moment). Here the bot is disabled in the database alone, as
    a disable committed after the claim read its window looks to the claim: its matches are still
    waiting."""
    bots = make_bots(db, 4)
    league = create_league(db, "rr", TEST_GAME, [bot.name for bot in bots], seed=1)
    first_match = "SELECT s.bot_id FROM matchseat s JOIN match m ON m.id = s.match_id WHERE m.ordinal = 0"
    with db.engine.begin() as connection:
        gone = connection.execute(text(first_match)).scalars().first()
        connection.execute(text("UPDATE bot SET enabled = false WHERE id = :bot"), {"bot": gone})
    claimed = claim_matches(db, league.id, 1)  # the first in plan order has the disabled bot
    assert len(claimed) == 1 and gone not in claimed[0].bot_ids
    finish(db, claimed[0])
    assert run_all(db, league.id) == 2
    assert get_league(db, "rr").finished
    progress = league_progress(db, league.id)
    assert (progress[MatchStatus.FINISHED], progress[MatchStatus.CANCELLED]) == (3, 3)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"name": "taken"}, ConflictError, "already exists"),
        ({"game": "chess"}, InvalidRequestError, "unknown game"),
        ({"players": 6}, InvalidRequestError, "2 to 5 players"),
        ({"players": 4}, InvalidRequestError, "cannot fill"),
        ({"options": {"target": "high"}}, InvalidRequestError, "takes a int"),
        ({"format": "swiss"}, InvalidRequestError, "unknown league format"),
        ({"format": "gauntlet"}, InvalidRequestError, "challenger"),
        ({"challenger": "bot0"}, InvalidRequestError, "challenger"),
        ({"bots": ["bot0", "bot0", "bot1"]}, InvalidRequestError, "'bot0' is entered twice: each bot"),
        (
            {"format": "gauntlet", "challenger": "bot0", "bots": ["bot0", "bot1"]},
            InvalidRequestError,
            "'bot0' is both the challenger and in the field: a gauntlet's challenger plays the field",
        ),
        ({"bots": ["bot0", "ghost"]}, NotFoundError, "ghost"),
        ({"bots": ["bot0", "other_game"]}, InvalidRequestError, "does not play"),
        ({"rounds": 0}, InvalidRequestError, "rounds"),
    ],
)
def test_refused_leagues_change_nothing(
    db: Database, kwargs: dict[str, object], error: type[LadderError], words: str
) -> None:
    make_bots(db, 3)
    register_bot(db, "other_game", ["kingdoms"])
    create_league(db, "taken", TEST_GAME, ["bot0", "bot1"], seed=1)
    before = snapshot(db)
    arguments: dict[str, object] = {"name": "new", "game": TEST_GAME, "bots": ["bot0", "bot1", "bot2"]}
    arguments.update(kwargs)
    with pytest.raises(error, match=words):
        create_league(db, **arguments)  # type: ignore[arg-type]
    assert snapshot(db) == before


def test_a_real_match_log_replays_to_the_recorded_result(db: Database) -> None:
    """End to end with a real engine: the stored seed, options and actions replay exactly."""
    from kingmaker.games.registry import get_game
    from kingmaker.sample_bots.random_bot import RandomBot
    from kingmaker.sdk.local import play_local

    game = get_game("kingdoms")
    register_bot(db, "r0", ["kingdoms"])
    register_bot(db, "r1", ["kingdoms"])
    league = create_league(db, "real", "kingdoms", ["r0", "r1"], seed=11)
    (ticket,) = next_matches(db, league.id)
    mark_running(db, ticket.match_id)
    played = play_local("kingdoms", [RandomBot(1), RandomBot(2)], seed=ticket.seed, options=ticket.options)
    seats = tuple(
        SeatOutcome(seat, bot, played.result.scores[seat], played.result.ranks[seat])
        for seat, bot in enumerate(ticket.bot_ids)
    )
    finish_match(db, MatchOutcome(ticket.match_id, seats, game.spec.edition, actions_to_data(played.log)))
    log = match_log(db, ticket.match_id)
    state = game.new(len(ticket.bot_ids), log.seed, log.options)
    for joint in log.actions:
        state.apply({int(seat): action_from_data(game.spec, data) for seat, data in joint.items()})
    assert state.is_over()
    assert state.result() == played.result
    assert log.rules_edition == game.spec.edition


def test_a_claim_prefers_matches_whose_bots_are_free(db: Database) -> None:
    """A round robin's plan puts a bot's matches together; claiming them in that order made a
    bot play several matches at once (a process each) while other bots waited."""
    bots = make_bots(db, 6)
    ids = {bot.name: bot.id for bot in bots}
    league = create_league(db, "free", TEST_GAME, [bot.name for bot in bots], seed=1)
    first = claim_matches(db, league.id, 3)
    seated = [set(ticket.bot_ids) for ticket in first]
    assert len(set().union(*seated)) == 6, "three matches of six bots: none may share a bot"
    # Bots 0 and 1 are still in play: the next claim passes over their matches...
    busy = frozenset({ids["bot0"], ids["bot1"]})
    later = claim_matches(db, league.id, 2, busy)
    assert all(busy.isdisjoint(ticket.bot_ids) for ticket in later)
    assert len(set(later[0].bot_ids) | set(later[1].bot_ids)) == 4
    # ...but when only busy bots' matches are left, it still hands them all out.
    everyone = frozenset(ids.values())
    rest = claim_matches(db, league.id, 100, everyone)
    assert len(first) + len(later) + len(rest) == 15
    assert len({ticket.match_id for ticket in rest}) == len(rest)


def test_with_every_bot_busy_a_claim_seats_the_least_busy_ones(db: Database) -> None:
    """With twice as many bots as matches at once (16 bots, 8 matches) no match is ever free, and
    plan order (bot0 meets everyone first) seated bot0 in match after match at once, a process
    each. Told how many matches each bot plays, the claim passes over the busiest."""
    bots = make_bots(db, 6)
    ids = {bot.name: bot.id for bot in bots}
    league = create_league(db, "crowded", TEST_GAME, [bot.name for bot in bots], seed=1)
    busy = Counter(ids.values())  # every bot in one match ...
    busy[ids["bot0"]] = 2  # ... and bot0 in two
    claimed = claim_matches(db, league.id, 2, busy)
    seated = [bot for ticket in claimed for bot in ticket.bot_ids]
    assert ids["bot0"] not in seated, "the bot in two matches already is the last to get a third"
    assert len(seated) == len(set(seated)) == 4, "nor is any other seated twice while one bot waits"
