"""Competitions in the ladder, on a clock the test holds: entries, the deadline, frozen versions,
both finals formats to a winner, and every step taken again changing nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from ladder_support import TEST_GAME

from kingmaker.ladder.bots.bots import edit_bot, register_bot
from kingmaker.ladder.bots.pinned_versions import pinned_runnables
from kingmaker.ladder.competitions.competition_phases import apply_clock, start_finals
from kingmaker.ladder.competitions.competitions import (
    create_competition,
    enter_competition,
    get_competition,
    parse_time,
    select_version,
)
from kingmaker.ladder.errors import InvalidRequestError
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.matches import finish_match
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
DEADLINE = START + timedelta(hours=6)


def play_out(db: Database, league_name: str, strength: dict[int, int]) -> int:
    """Play every match of a league: the stronger bot (by ``strength``) ranks first."""
    info = leagues.get_league(db, league_name)
    played = 0
    while tickets := leagues.claim_matches(db, info.id, 8):
        for ticket in tickets:
            order = sorted(ticket.bot_ids, key=lambda bot: -strength[bot])
            seats = tuple(
                SeatOutcome(seat, bot, score=strength[bot], rank=order.index(bot) + 1)
                for seat, bot in enumerate(ticket.bot_ids)
            )
            finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))
            played += 1
    return played


def bots(db: Database, count: int) -> dict[str, int]:
    made = {}
    for index in range(count):
        info, _ = register_bot(db, f"b{index}", [TEST_GAME], command=["true", str(index)])
        made[info.name] = info.id
    return made


def test_times_are_iso_utc_and_bad_ones_say_so() -> None:
    assert parse_time("2026-12-01T18:00:00Z") == datetime(2026, 12, 1, 18, tzinfo=UTC)
    assert parse_time("2026-12-01T19:00:00+01:00") == datetime(2026, 12, 1, 18, tzinfo=UTC)
    with pytest.raises(InvalidRequestError, match="no zone"):
        parse_time("2026-12-01T18:00:00")
    with pytest.raises(InvalidRequestError, match="ISO 8601"):
        parse_time("tomorrow")


def test_a_reset_ladder_with_a_cut_freezes_versions_and_publishes_a_winner(db: Database) -> None:
    ids = bots(db, 4)
    create_competition(
        db, "cup", TEST_GAME, DEADLINE, START, finals={"format": "ladder", "rounds": 1, "cuts": [2]}
    )
    for name in ("b0", "b1", "b2"):
        enter_competition(db, "cup", name, START + timedelta(minutes=1))
    edit_bot(db, "b1", command=["true", "b1-v2"])  # b1 v2 is active before the deadline
    edit_bot(db, "b2", command=["true", "b2-v2"])
    select_version(db, "cup", "b2", 1, START + timedelta(hours=1))  # b2's author keeps v1
    with pytest.raises(InvalidRequestError, match="closed at 2026-12-01T18:00:00Z"):
        enter_competition(db, "cup", "b3", DEADLINE)

    work = apply_clock(db, DEADLINE + timedelta(seconds=1))
    assert work.changed == ["cup"] and work.to_stop == ["cup.open"]
    edit_bot(db, "b0", command=["true", "b0-v2"])  # after the deadline: plays elsewhere only
    info = get_competition(db, "cup")
    assert info.phase == "closed"
    assert {e.bot: e.frozen_version for e in info.entries} == {"b0": 1, "b1": 2, "b2": 1}
    assert {e.bot: e.active_version for e in info.entries} == {"b0": 2, "b1": 2, "b2": 2}

    stage_one = start_finals(db, "cup", DEADLINE + timedelta(hours=1))
    assert stage_one == ["cup.f1.0"]
    assert start_finals(db, "cup", DEADLINE + timedelta(hours=1)) == stage_one  # a resume
    league = leagues.get_league(db, "cup.f1.0")
    pinned = pinned_runnables(db, league.bot_ids, league.id)
    assert {run.name: (run.version, run.command) for run in pinned.values()} == {
        "b0": (1, ("true", "0")), "b1": (2, ("true", "b1-v2")), "b2": (1, ("true", "2")),
    }  # fmt: skip
    strength = {ids["b0"]: 1, ids["b1"]: 3, ids["b2"]: 2, ids["b3"]: 0}
    assert play_out(db, "cup.f1.0", strength) == 3 * 2  # three pairs, both seatings
    work = apply_clock(db, DEADLINE + timedelta(hours=2))
    assert work.to_run == ["cup.f2.0"]
    info = get_competition(db, "cup")
    assert info.stage == 2 and [(e.bot, e.out_at_stage) for e in info.entries if e.out_at_stage] == [
        ("b0", 1)
    ]
    play_out(db, "cup.f2.0", strength)
    apply_clock(db, DEADLINE + timedelta(hours=3))
    final = get_competition(db, "cup")
    assert final.phase == "final" and final.winner == "b1"
    assert [s.bot for s in final.standings] == ["b1", "b2", "b0"]
    cut = final.standings[2]  # its finals figures stay shown: 2 opponents, both seatings
    assert (cut.matches, cut.note) == (4, "out after stage 1") and cut.mu < final.standings[0].mu
    kinds = [d.kind for d in final.decisions]
    assert kinds.count("freeze") == 3 and kinds.count("cut") == 1 and kinds.count("winner") == 1
    apply_clock(db, DEADLINE + timedelta(hours=4))  # nothing more to decide, nothing doubled
    assert get_competition(db, "cup").decisions == final.decisions
    with pytest.raises(InvalidRequestError, match="final"):
        start_finals(db, "cup", DEADLINE + timedelta(hours=5))


def test_a_seeded_bracket_gives_byes_to_the_best_and_the_best_of_duplicate_pairs_wins(db: Database) -> None:
    ids = bots(db, 5)
    create_competition(db, "knockout", TEST_GAME, DEADLINE, START, finals={"format": "bracket", "best_of": 1})
    for name in ids:
        enter_competition(db, "knockout", name, START)
    with pytest.raises(InvalidRequestError, match="open until"):
        start_finals(db, "knockout", START + timedelta(hours=1))
    strength = {bot_id: index for index, bot_id in enumerate(ids.values())}  # b4 strongest
    assert start_finals(db, "knockout", DEADLINE) == [
        "knockout.f1.1"
    ]  # 5 in a bracket of 8: seeds 4 v 5 only
    stage = 1
    while get_competition(db, "knockout").phase == "finals":
        for name in apply_clock(db, DEADLINE + timedelta(minutes=stage)).to_run:
            assert play_out(db, name, strength) == 2  # best of 1 duplicate pair: both seatings
        apply_clock(db, DEADLINE + timedelta(minutes=stage, seconds=30))
        stage += 1
    final = get_competition(db, "knockout")
    assert final.winner == "b4" and final.standings[0].bot == "b4"
    byes = [d.bot for d in final.decisions if d.kind == "advance" and "bye" in d.reason]
    assert byes == ["b0", "b1", "b2"]  # seeds 1-3 (equal in the open ladder: by order of entry)
    assert stage - 1 == 3  # 3 stages for a bracket of 8


def test_finals_settings_are_checked(db: Database) -> None:
    with pytest.raises(InvalidRequestError, match="2-seat"):
        create_competition(db, "c", TEST_GAME, DEADLINE, START, players=3, finals={"format": "bracket"})
    with pytest.raises(InvalidRequestError, match="fewer bots"):
        create_competition(db, "c", TEST_GAME, DEADLINE, START, finals={"format": "ladder", "cuts": [4, 4]})
    with pytest.raises(InvalidRequestError, match="has passed"):
        create_competition(db, "c", TEST_GAME, START, DEADLINE, opens_at=START - timedelta(hours=1))
    with pytest.raises(InvalidRequestError, match="unknown finals format"):
        create_competition(db, "c", TEST_GAME, DEADLINE, START, finals={"format": "double"})


def test_swiss_rounds_seat_tables_by_points_and_give_each_a_bye_in_turn(db: Database) -> None:
    ids = bots(db, 5)
    create_competition(
        db,
        "swiss",
        TEST_GAME,
        DEADLINE,
        START,
        players=3,
        finals={"format": "swiss", "rounds": 3, "best_of": 1},
    )
    for name in ids:
        enter_competition(db, "swiss", name, START)
    strength = {bot_id: -index for index, bot_id in enumerate(ids.values())}  # b0 strongest
    tables = []
    stage = start_finals(db, "swiss", DEADLINE)
    for minute in range(1, 10):
        if not stage:
            break
        for name in stage:
            tables.append(leagues.get_league(db, name).bot_ids)
            assert play_out(db, name, strength) == 3  # one seed from each of the 3 seats
        stage = apply_clock(db, DEADLINE + timedelta(minutes=minute)).to_run
    final = get_competition(db, "swiss")
    named = {bot_id: name for name, bot_id in ids.items()}
    # Round 1 by seed (5 into tables of 3: the two lowest sit out); round 2: b0 leads with 2
    # points, and the two lowest who have not sat out (b2, b1) do; round 3: only b0 has not.
    assert [sorted(named[bot] for bot in table) for table in tables] == [
        ["b0", "b1", "b2"], ["b0", "b3", "b4"], ["b1", "b2", "b3"],
    ]  # fmt: skip
    byes = [(d.stage, d.bot) for d in final.decisions if d.kind == "bye"]
    assert sorted(byes) == [(1, "b3"), (1, "b4"), (2, "b1"), (2, "b2"), (3, "b0"), (3, "b4")]
    assert final.phase == "final" and final.winner == "b0"
    # 3 matches a table, 2 points a first place and 1 a second: b0 won 6 matches, b1 was second
    # in 3 and first in 3.
    assert [(s.bot, s.points) for s in final.standings][:2] == [("b0", 12), ("b1", 9)]


def test_seat_tables_fill_every_table() -> None:
    from kingmaker.ladder.competitions.competition_swiss import seat_tables

    tables, byes = seat_tables([1, 2, 3, 4, 5, 6, 7], 3, sat_out={7})
    assert tables == [[1, 2, 3], [4, 5, 7]] and byes == [6]
    tables, byes = seat_tables([1, 2, 3, 4], 4, sat_out=set())
    assert tables == [[1, 2, 3, 4]] and byes == []


def test_an_entry_suspended_before_its_stage_is_dropped_and_the_bracket_goes_on(db: Database) -> None:
    from ladder_support import suspend

    ids = bots(db, 4)
    create_competition(db, "open-cup", TEST_GAME, DEADLINE, START, finals={"format": "bracket", "best_of": 1})
    for name in ids:
        enter_competition(db, "open-cup", name, START)
    apply_clock(db, DEADLINE)
    suspend(db, "b3")  # seed 4: it would have met seed 1
    stage = start_finals(db, "open-cup", DEADLINE)
    assert [leagues.get_league(db, name).bot_ids for name in stage] == [(ids["b1"], ids["b2"])]
    strength = {bot_id: index for index, bot_id in enumerate(ids.values())}
    minute = 0
    while stage:
        minute += 1
        for name in stage:
            play_out(db, name, strength)
        stage = apply_clock(db, DEADLINE + timedelta(minutes=minute)).to_run
    final = get_competition(db, "open-cup")
    assert final.winner == "b2"  # b0 went on by walkover, then lost to the stronger b2
    dropped = [d.reason for d in final.decisions if d.kind == "drop"]
    assert len(dropped) == 1 and dropped[0].startswith("b3 dropped before stage 1: it is suspended")
    assert final.standings[-1].bot == "b3"


def test_competitions_are_listed_a_page_at_a_time(db: Database) -> None:
    from kingmaker.ladder.competitions.competitions import list_competitions

    for name in ("a", "b", "c"):
        create_competition(db, name, TEST_GAME, DEADLINE, START)
    first = list_competitions(db, limit=2)
    assert [info.name for info in first] == ["a", "b"]
    assert [info.name for info in list_competitions(db, limit=2, after_id=first[-1].id)] == ["c"]
