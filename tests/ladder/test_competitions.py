"""Competitions in the ladder, on a clock the test holds: entries, the deadline, frozen versions,
both finals formats to a winner, and every step taken again changing nothing."""

from __future__ import annotations

from collections import Counter
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
from kingmaker.ladder.errors import InvalidRequestError, NotFoundError
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
        db, "cup", TEST_GAME, DEADLINE, START, finals={"format": "ladder", "rounds": 1, "cuts": [2]},
        finals_at=DEADLINE + timedelta(hours=1),
    )  # fmt: skip
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

    assert apply_clock(db, DEADLINE + timedelta(minutes=59)).to_run == []  # closed until its finals
    stage_one = apply_clock(db, DEADLINE + timedelta(hours=1)).to_run  # they start by themselves
    assert stage_one == ["cup.f1.0"]
    assert start_finals(db, "cup", DEADLINE + timedelta(hours=1)) == stage_one  # a resume
    (started,) = [d.reason for d in get_competition(db, "cup").decisions if d.kind == "finals"]
    assert started.startswith("finals started at their stated time 2026-12-01T19:00:00Z")
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


def test_swiss_rounds_mix_table_sizes_score_by_share_beaten_and_never_repeat_a_table(db: Database) -> None:
    ids = bots(db, 7)
    create_competition(
        db, "swiss", TEST_GAME, DEADLINE, START, players=4,
        finals={"format": "swiss", "rounds": 3, "best_of": 1},
    )  # fmt: skip
    for name in ids:
        enter_competition(db, "swiss", name, START)
    strength = {bot_id: -index for index, bot_id in enumerate(ids.values())}  # b0 strongest
    named = {bot_id: name for name, bot_id in ids.items()}
    rounds: list[list[tuple[str, ...]]] = []
    stage = apply_clock(db, DEADLINE).to_run  # no finals command: they start at the deadline
    for minute in range(1, 10):
        if not stage:
            break
        rounds.append([tuple(named[bot] for bot in leagues.get_league(db, name).bot_ids) for name in stage])
        for name in stage:
            play_out(db, name, strength)
        stage = apply_clock(db, DEADLINE + timedelta(minutes=minute)).to_run
    final = get_competition(db, "swiss")
    # 7 at 4 seats: a table of 4 and one of 3 every round, nobody sits out.
    assert [sorted(len(table) for table in tables) for tables in rounds] == [[3, 4]] * 3
    assert not [d for d in final.decisions if d.kind == "bye"]
    assert sorted(rounds[0][0]) == ["b0", "b1", "b2", "b3"]  # round 1 by seed: the leaders together
    # b0 beats everyone at every table: 1 point a round, whatever the table's size.
    assert final.winner == "b0" and (final.standings[0].bot, final.standings[0].points) == ("b0", 3.0)
    points = [s.points for s in final.standings]
    assert points == sorted(points, reverse=True)
    assert all(s.buchholz > 0 for s in final.standings)
    (shown,) = [r for r in final.swiss_rounds if r.stage == 1]
    assert shown.tables[0][0] == ("b0", 1.0) and shown.tables[0][-1][1] == 0.0  # first 1, last 0


def test_an_odd_swiss_at_two_seats_gives_each_bye_once_scored_as_a_win(db: Database) -> None:
    ids = bots(db, 5)
    create_competition(db, "duel", TEST_GAME, DEADLINE, START, finals={"format": "swiss", "rounds": 4})
    for name in ids:
        enter_competition(db, "duel", name, START)
    strength = {bot_id: -index for index, bot_id in enumerate(ids.values())}
    stage, minute, pairs = apply_clock(db, DEADLINE).to_run, 0, []
    while stage:
        minute += 1
        for name in stage:
            pairs.append(frozenset(leagues.get_league(db, name).bot_ids))
            play_out(db, name, strength)
        stage = apply_clock(db, DEADLINE + timedelta(minutes=minute)).to_run
    final = get_competition(db, "duel")
    byes = [d.bot for d in final.decisions if d.kind == "bye"]
    assert len(byes) == 4 and len(set(byes)) == 4, "nobody sits out twice while another has not"
    assert len(pairs) == len(set(pairs)) == 8, "no pair meets twice"
    by_bot = {s.bot: s for s in final.standings}
    for bot in byes:  # a bye is a win's point: 4 rounds of at most 1
        assert by_bot[bot].points >= 1.0 and by_bot[bot].matches == 3 * 2  # 3 meetings, both seats
    assert final.winner == "b0" and by_bot["b0"].points == 4.0


def test_an_entry_suspended_before_its_stage_is_dropped_and_the_bracket_goes_on(db: Database) -> None:
    from ladder_support import suspend

    ids = bots(db, 4)
    create_competition(
        db, "open-cup", TEST_GAME, DEADLINE, START, finals={"format": "bracket", "best_of": 1},
        finals_at=DEADLINE + timedelta(hours=1),
    )  # fmt: skip
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


def test_finals_that_cannot_fill_a_match_end_the_competition_rather_than_wait(db: Database) -> None:
    bots(db, 1)
    create_competition(db, "lonely", TEST_GAME, DEADLINE, START)
    enter_competition(db, "lonely", "b0", START)
    apply_clock(db, DEADLINE)
    info = get_competition(db, "lonely")
    assert info.phase == "final" and info.winner is None
    (said,) = [d.reason for d in info.decisions if d.kind == "winner"]
    assert said == "no winner: 1 frozen entries cannot fill a 2-seat match: no finals"


def test_standings_agree_with_the_decisions_open_and_cut(db: Database) -> None:
    ids = bots(db, 5)
    create_competition(
        db, "agree", TEST_GAME, DEADLINE, START, finals={"format": "ladder", "rounds": 1, "cuts": [2]}
    )
    for name in ids:
        enter_competition(db, "agree", name, START)
    strength = {bot_id: index for index, bot_id in enumerate(ids.values())}  # b4 strongest
    open_league = get_competition(db, "agree").open_league
    assert open_league is not None
    info = leagues.get_league(db, open_league)
    tickets = leagues.claim_matches(db, info.id, 3)  # three open matches finish, the rest wait
    for ticket in tickets:
        order = sorted(ticket.bot_ids, key=lambda bot: -strength[bot])
        seats = tuple(SeatOutcome(s, b, score=strength[b], rank=order.index(b) + 1)
                      for s, b in enumerate(ticket.bot_ids))  # fmt: skip
        finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))
    shown = {s.bot: (s.matches, s.wins) for s in get_competition(db, "agree").standings}
    played = Counter(bot for t in tickets for bot in t.bot_ids)
    won = Counter(max(t.bot_ids, key=lambda bot: strength[bot]) for t in tickets)
    names = {bot_id: name for name, bot_id in ids.items()}
    assert shown == {names[b]: (played[b], won[b]) for b in ids.values()}, "finished matches, not planned"

    # The cut ones stand in the order their cut decisions gave them, not by seed.
    for name in apply_clock(db, DEADLINE).to_run:
        play_out(db, name, {bot: -s for bot, s in strength.items()})  # seeds upside down
    apply_clock(db, DEADLINE + timedelta(minutes=1))  # stage 1 is decided: three are cut
    after = get_competition(db, "agree")
    cut = sorted((d for d in after.decisions if d.kind == "cut"),
                 key=lambda d: int(d.reason.split("placed ", 1)[1].split()[0]))  # fmt: skip
    standing = [s.bot for s in after.standings if s.note == "out after stage 1"]
    assert standing == [d.bot for d in cut] and len(cut) == 3


def test_seeds_come_from_the_frozen_version_s_own_record_in_the_open_ladder(db: Database) -> None:
    ids = bots(db, 3)
    create_competition(db, "frozen", TEST_GAME, DEADLINE, START, finals={"format": "bracket", "best_of": 1})
    for name in ("b0", "b1"):
        enter_competition(db, "frozen", name, START)
    league = leagues.get_league(db, "frozen.open")

    def play_some(strength: dict[int, int], count: int, b0_version: int) -> None:
        """As the server records them: each seat with the version that played."""
        for _ in range(count):
            for ticket in leagues.claim_matches(db, league.id, 1):
                order = sorted(ticket.bot_ids, key=lambda bot: -strength[bot])
                seats = tuple(SeatOutcome(s, b, score=strength[b], rank=order.index(b) + 1,
                                          version=b0_version if b == ids["b0"] else 1)
                              for s, b in enumerate(ticket.bot_ids))  # fmt: skip
                finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))

    play_some({ids["b0"]: 2, ids["b1"]: 1}, 6, b0_version=1)  # b0 v1 beats b1 v1 every time
    edit_bot(db, "b0", command=["true", "b0-v2"])  # b0 v2 loses every time: the bot's rating sinks
    play_some({ids["b0"]: 0, ids["b1"]: 1}, 12, b0_version=2)
    select_version(db, "frozen", "b0", 1, START + timedelta(hours=1))  # ...but its finals play v1
    enter_competition(db, "frozen", "b2", START + timedelta(hours=2))  # never plays before the deadline
    apply_clock(db, DEADLINE)
    seeds = {d.bot: d.reason for d in get_competition(db, "frozen").decisions if d.kind == "seed"}
    assert seeds["b0"].startswith("b0 seeded 1 (v1's own record in the open ladder: conservative")
    assert seeds["b0"].endswith("over 6 matches)")
    assert seeds["b1"].startswith("b1 seeded 2 (")
    assert seeds["b2"] == "b2 seeded 3 (v1 never played in the open ladder: seeded after those that did)"


def test_an_entry_leaves_before_the_deadline_and_its_ladder_goes_on_without_it(db: Database) -> None:
    from kingmaker.ladder.competitions.competitions import leave_competition

    ids = bots(db, 4)
    create_competition(db, "door", TEST_GAME, DEADLINE, START)
    for name in ("b0", "b1", "b2"):
        enter_competition(db, "door", name, START)
    info = leave_competition(db, "door", "b1", START + timedelta(minutes=1))
    assert [e.bot for e in info.entries] == ["b0", "b2"]
    assert [(d.kind, d.bot) for d in info.decisions][-1] == ("leave", "b1")
    open_league = leagues.get_league(db, "door.open")
    assert open_league.left_ids == (ids["b1"],), "it left the open ladder"
    enter_competition(db, "door", "b3", START + timedelta(minutes=2))  # order of entry stays unique
    enter_competition(db, "door", "b1", START + timedelta(minutes=3))  # and may come back
    assert [e.bot for e in get_competition(db, "door").entries] == ["b0", "b2", "b3", "b1"]
    with pytest.raises(InvalidRequestError, match="too late to leave"):
        leave_competition(db, "door", "b0", DEADLINE)
    with pytest.raises(NotFoundError, match="not in competition"):
        leave_competition(db, "door", "nobody", START)


def test_double_elimination_puts_out_after_two_losses_and_the_losers_winner_must_win_twice(
    db: Database,
) -> None:
    ids = bots(db, 5)
    create_competition(
        db, "double", TEST_GAME, DEADLINE, START, finals={"format": "double_elimination", "best_of": 1}
    )
    for name in ids:
        enter_competition(db, "double", name, START)
    strength = {bot_id: index for index, bot_id in enumerate(ids.values())}  # b4 strongest, seed 5
    stage, minute = apply_clock(db, DEADLINE).to_run, 0  # no finals command: they start by themselves
    assert stage == ["double.f1.1"]  # 5 in a bracket of 8: seeds 4 v 5 only, the rest byes
    while stage:
        minute += 1
        for name in stage:
            assert play_out(db, name, strength) == 2  # one duplicate pair a meeting
        stage = apply_clock(db, DEADLINE + timedelta(minutes=minute)).to_run
    final = get_competition(db, "double")
    assert final.winner == "b4" and final.standings[0].bot == "b4"
    assert final.stage == 6, "winners' rounds 1-3, losers' rounds 1-4 (stages 2-5), the grand final"
    losses = Counter(d.bot for d in final.decisions if d.kind in ("losers", "eliminated", "reset"))
    assert losses == {"b0": 2, "b1": 2, "b2": 2, "b3": 2}, "all but the winner lost twice"
    assert not [d for d in final.decisions if d.kind == "reset"], "the winners' bracket winner won"
    out = [(s.bot, s.note) for s in final.standings[1:]]
    assert out[0] == ("b3", "out after stage 6"), "the grand final's loser is second"
    assert [e.out_at_stage for e in final.entries if e.bot == "b0"] != [None]
    shown = final.bracket
    assert {m.side for m in shown} == {"winners", "losers", "grand final", "reset"}
    (reset,) = [m for m in shown if m.side == "reset"]
    assert not reset.played and reset.league is None
    (grand,) = [m for m in shown if m.side == "grand final"]
    assert grand.bots == ("b4", "b3") and grand.winner == "b4" and grand.league == "double.f6.0"
    apply_clock(db, DEADLINE + timedelta(hours=1))  # nothing more to decide, nothing doubled
    assert get_competition(db, "double").decisions == final.decisions

    # Two entries: the loser of their first meeting wins the grand final, so they meet again.
    bots_two = {name: bot_id for name, bot_id in ids.items() if name in ("b0", "b1")}
    create_competition(db, "rematch", TEST_GAME, DEADLINE, START, finals={"format": "double_elimination"})
    for name in bots_two:
        enter_competition(db, "rematch", name, START)
    flips = {"rematch.f1.0": {ids["b0"]: 1, ids["b1"]: 0}}  # b0 wins the first, then b1 twice
    stage, minute = apply_clock(db, DEADLINE).to_run, 0
    while stage:
        minute += 1
        for name in stage:
            assert play_out(db, name, flips.get(name, {ids["b0"]: 0, ids["b1"]: 1})) == 3 * 2
        stage = apply_clock(db, DEADLINE + timedelta(minutes=minute)).to_run
    final = get_competition(db, "rematch")
    assert final.winner == "b1" and final.stage == 3, "the grand final, then its reset"
    (reset,) = [d for d in final.decisions if d.kind == "reset"]
    assert reset.bot == "b0" and "meet again in the reset" in reset.reason
    (winner,) = [d.reason for d in final.decisions if d.kind == "winner"]
    assert winner.startswith("b1 wins: won the reset (stage 3)")
    assert [s.bot for s in final.standings] == ["b1", "b0"]
