"""Tiers of a competition on a clock the test holds: entries start in the lowest tier's ladder,
one that ranks above the tier's boss after the stated matches is promoted (once, however often
the clock is applied, and after a crash between the promotion and the move), one below is not,
and a boss plays but is never an entry nor promoted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from ladder_support import TEST_GAME
from sqlmodel import col, select

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.competitions.competition_phases import apply_clock
from kingmaker.ladder.competitions.competition_relegation import longest_run, relegate
from kingmaker.ladder.competitions.competition_tiers import finished_counts, promote
from kingmaker.ladder.competitions.competitions import create_competition, enter_competition, get_competition
from kingmaker.ladder.errors import InvalidRequestError, NotFoundError
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.matches import finish_match
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import LeagueBot

START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
DEADLINE = START + timedelta(hours=6)
TIERS = [{"name": "wood", "boss": "wood-boss"}, {"name": "gold", "boss": "gold-boss"}]


def register(db: Database, *names: str) -> dict[str, int]:
    return {name: register_bot(db, name, [TEST_GAME], command=["true", name])[0].id for name in names}


def play(db: Database, league_name: str, strength: dict[int, int], until: int, bot: int) -> None:
    """Play the league's matches (the stronger ranks first) until ``bot`` has finished ``until``."""
    info = leagues.get_league(db, league_name)
    for _ in range(200):
        with db.read() as session:
            if finished_counts(session, info.id).get(bot, 0) >= until:
                return
        for ticket in leagues.claim_matches(db, info.id, 1):
            order = sorted(ticket.bot_ids, key=lambda seated: -strength[seated])
            seats = tuple(
                SeatOutcome(seat, seated, score=strength[seated], rank=order.index(seated) + 1)
                for seat, seated in enumerate(ticket.bot_ids)
            )
            finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))
    raise AssertionError(f"{bot} never played {until} matches in {league_name}")


def present(db: Database, league_name: str) -> set[int]:
    info = leagues.get_league(db, league_name)
    with db.read() as session:
        rows = session.exec(
            select(LeagueBot.bot_id).where(LeagueBot.league_id == info.id, col(LeagueBot.left_at).is_(None))
        ).all()
    return set(rows)


def test_an_entry_above_its_boss_is_promoted_once_and_one_below_is_not(db: Database) -> None:
    ids = register(db, "wood-boss", "gold-boss", "strong", "weak")
    create_competition(db, "season", TEST_GAME, DEADLINE, START, tiers=TIERS, promote_after=4)
    with pytest.raises(InvalidRequestError, match="is a boss"):
        enter_competition(db, "season", "wood-boss", START)
    for name in ("strong", "weak"):
        enter_competition(db, "season", name, START)
    work = apply_clock(db, START + timedelta(seconds=1))
    assert work.to_run == ["season.t1"]  # gold has nobody yet: no league
    assert present(db, "season.t1") == {ids["wood-boss"], ids["strong"], ids["weak"]}
    assert {e.bot: e.tier for e in get_competition(db, "season").entries} == {
        "strong": "wood",
        "weak": "wood",
    }

    strength = {ids["strong"]: 3, ids["wood-boss"]: 2, ids["weak"]: 1, ids["gold-boss"]: 4}
    play(db, "season.t1", strength, until=3, bot=ids["strong"])
    apply_clock(db, START + timedelta(minutes=1))  # above the boss, but too few matches yet
    assert "promote" not in [d.kind for d in get_competition(db, "season").decisions]

    play(db, "season.t1", strength, until=4, bot=ids["strong"])
    play(db, "season.t1", strength, until=4, bot=ids["weak"])
    work = apply_clock(db, START + timedelta(minutes=2))
    assert work.changed == ["season"] and set(work.to_run) == {"season.t1", "season.t2"}
    assert work.entrants_changed == ["season.t1"]  # season.t2 is new: it starts with its members
    info = get_competition(db, "season")
    assert {e.bot: e.tier for e in info.entries} == {"strong": "gold", "weak": "wood"}
    promotions = [d for d in info.decisions if d.kind == "promote"]
    assert [d.bot for d in promotions] == ["strong"]
    assert "from wood to gold" in promotions[0].reason and "wood-boss" in promotions[0].reason
    assert present(db, "season.t1") == {ids["wood-boss"], ids["weak"]}
    assert present(db, "season.t2") == {ids["gold-boss"], ids["strong"]}

    apply_clock(db, START + timedelta(minutes=3))  # again: nothing doubled
    assert get_competition(db, "season").decisions == info.decisions
    standings = get_competition(db, "season").standings
    assert next((s.tier, s.bot, s.note) for s in standings if s.tier == "wood") == (
        "wood",
        "wood-boss",
        "boss of wood",
    )
    assert {s.bot for s in standings if s.tier == "gold"} == {"strong", "gold-boss"}

    apply_clock(db, DEADLINE)  # closes: the higher tier seeds first; bosses never enter the finals
    closed = get_competition(db, "season")
    assert closed.phase == "finals"  # they start by themselves at the deadline
    assert [(e.bot, e.seed) for e in closed.entries] == [("strong", 1), ("weak", 2)]


def test_a_promotion_interrupted_before_the_move_is_finished_by_the_next_look(db: Database) -> None:
    ids = register(db, "wood-boss", "gold-boss", "strong")
    create_competition(db, "crash", TEST_GAME, DEADLINE, START, tiers=TIERS, promote_after=2)
    enter_competition(db, "crash", "strong", START)
    apply_clock(db, START)
    strength = {ids["strong"]: 2, ids["wood-boss"]: 1, ids["gold-boss"]: 3}
    play(db, "crash.t1", strength, until=2, bot=ids["strong"])
    assert promote(db, "crash", START + timedelta(minutes=1)) == ["strong"]  # the server dies here
    assert promote(db, "crash", START + timedelta(minutes=1)) == []  # decided once
    assert ids["strong"] in present(db, "crash.t1")
    apply_clock(db, START + timedelta(minutes=2))  # the restarted server's first look
    assert present(db, "crash.t1") == {ids["wood-boss"]}
    assert present(db, "crash.t2") == {ids["strong"], ids["gold-boss"]}
    kinds = [d.kind for d in get_competition(db, "crash").decisions]
    assert kinds.count("promote") == 1


def test_tiers_are_checked(db: Database) -> None:
    register(db, "wood-boss", "gold-boss")
    with pytest.raises(InvalidRequestError, match="needs a boss"):
        create_competition(db, "a", TEST_GAME, DEADLINE, START, tiers=[{"name": "wood"}, {"name": "gold"}])
    with pytest.raises(InvalidRequestError, match="from 2"):
        create_competition(db, "b", TEST_GAME, DEADLINE, START, tiers=[{"name": "wood", "boss": "wood-boss"}])
    with pytest.raises(NotFoundError, match="no bot named 'nobody'"):
        create_competition(
            db, "c", TEST_GAME, DEADLINE, START, tiers=[{"name": "wood", "boss": "nobody"}, {"name": "gold"}]
        )
    with pytest.raises(InvalidRequestError, match="boss of two tiers"):
        create_competition(
            db, "d", TEST_GAME, DEADLINE, START,
            tiers=[{"name": "wood", "boss": "wood-boss"}, {"name": "gold", "boss": "wood-boss"}],
        )  # fmt: skip
    with pytest.raises(InvalidRequestError, match="promote_after is for competitions with tiers"):
        create_competition(db, "f", TEST_GAME, DEADLINE, START, promote_after=5)
    info = create_competition(
        db, "e", TEST_GAME, DEADLINE, START, tiers=[{"name": "wood", "boss": "wood-boss"}, {"name": "gold"}]
    )
    assert [(t["name"], t["boss"], t["league"]) for t in info.tiers] == [
        ("wood", "wood-boss", "e.t1"), ("gold", None, "e.t2"),
    ]  # fmt: skip
    assert info.promote_after == 10


def test_a_rating_earned_elsewhere_never_promotes_only_results_against_the_boss_in_the_tier(
    db: Database,
) -> None:
    ids = register(db, "wood-boss", "gold-boss", "famous", "sparring")
    # Elsewhere, "famous" wins everything: a high game rating, earned outside the tier.
    leagues.create_league(db, "elsewhere", TEST_GAME, ["famous", "sparring"], format="ladder", players=2)
    play(db, "elsewhere", {ids["famous"]: 9, ids["sparring"]: 0}, until=12, bot=ids["famous"])
    create_competition(db, "fair", TEST_GAME, DEADLINE, START, tiers=TIERS, promote_after=4)
    enter_competition(db, "fair", "famous", START)
    apply_clock(db, START)
    play(db, "fair.t1", {ids["famous"]: 1, ids["wood-boss"]: 2}, until=6, bot=ids["famous"])  # loses there
    apply_clock(db, START + timedelta(minutes=1))
    info = get_competition(db, "fair")
    assert [e.tier for e in info.entries] == ["wood"] and not [
        d for d in info.decisions if d.kind == "promote"
    ]
    play(db, "fair.t1", {ids["famous"]: 3, ids["wood-boss"]: 2}, until=14, bot=ids["famous"])  # now wins
    apply_clock(db, START + timedelta(minutes=2))
    (promoted,) = [d.reason for d in get_competition(db, "fair").decisions if d.kind == "promote"]
    assert promoted == (
        "famous promoted from wood to gold: above boss wood-boss in 8 of 14 meetings in wood, "
        "after 14 matches there"
    )


def test_an_entry_last_in_its_tier_n_times_in_a_row_is_relegated_and_earns_its_promotion_afresh(
    db: Database,
) -> None:
    ids = register(db, "wood-boss", "gold-boss", "climber")
    create_competition(
        db, "leagues", TEST_GAME, DEADLINE, START, tiers=TIERS, promote_after=2, relegate_after=3
    )
    enter_competition(db, "leagues", "climber", START)
    apply_clock(db, START)
    strength = {ids["climber"]: 2, ids["wood-boss"]: 1, ids["gold-boss"]: 3}  # between the bosses
    play(db, "leagues.t1", strength, until=2, bot=ids["climber"])
    apply_clock(db, START + timedelta(minutes=1))
    assert get_competition(db, "leagues").entries[0].tier == "gold"
    play(db, "leagues.t2", strength, until=2, bot=ids["climber"])
    apply_clock(db, START + timedelta(minutes=2))
    assert get_competition(db, "leagues").entries[0].tier == "gold", "2 last places: not yet"
    play(db, "leagues.t2", strength, until=3, bot=ids["climber"])
    assert relegate(db, "leagues", START + timedelta(minutes=3)) == ["climber"]  # the server dies here
    assert relegate(db, "leagues", START + timedelta(minutes=3)) == [], "decided once"
    apply_clock(db, START + timedelta(minutes=3))  # the next look moves its leagues
    info = get_competition(db, "leagues")
    assert info.entries[0].tier == "wood" and info.relegate_after == 3
    assert present(db, "leagues.t2") == {ids["gold-boss"]}
    assert present(db, "leagues.t1") == {ids["wood-boss"], ids["climber"]}
    (relegated,) = [d.reason for d in info.decisions if d.kind == "relegate"]
    assert relegated == "climber relegated from gold to wood: last at its table in 3 matches in a row in gold"

    # Back in wood, its earlier wood matches no longer count: it is promoted again only after 2 more.
    apply_clock(db, START + timedelta(minutes=4))
    assert get_competition(db, "leagues").entries[0].tier == "wood"
    play(db, "leagues.t1", strength, until=2 + 2, bot=ids["climber"])
    apply_clock(db, START + timedelta(minutes=5))
    again = get_competition(db, "leagues")
    assert again.entries[0].tier == "gold"
    assert [d.kind for d in again.decisions if d.kind in ("promote", "relegate")] == [
        "promote", "relegate", "promote",
    ]  # fmt: skip
    assert "after 2 matches there" in [d.reason for d in again.decisions if d.kind == "promote"][-1]


def test_relegation_counts_a_last_place_alone_and_runs_in_a_row_only() -> None:
    assert longest_run([True, True, False, True, True, True, False]) == 3
    assert longest_run([]) == 0 and longest_run([False, False]) == 0


def test_relegation_is_for_tiers(db: Database) -> None:
    register(db, "wood-boss", "gold-boss")
    with pytest.raises(InvalidRequestError, match="relegate_after is for competitions with tiers"):
        create_competition(db, "g", TEST_GAME, DEADLINE, START, relegate_after=3)
