"""A continuous ladder through the league store: it plans exactly what the simulation plans (so the
mixing test speaks for the real thing), keeps its rows as the seats say, and a claim costs the same
number of SQL statements with 10 bots or 100, and after 40 matches or 170."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from ladder_support import TEST_GAME, make_bots
from sqlalchemy import event
from sqlmodel import select

from kingmaker.ladder.leagues.leagues import claim_matches, create_league
from kingmaker.ladder.matches.matches import finish_match
from kingmaker.ladder.pairing.league_pool import league_pairs
from kingmaker.ladder.pairing.schedules.simulation import simulate
from kingmaker.ladder.ratings.ratings import settings_for
from kingmaker.ladder.records import MatchOutcome, MatchTicket, SeatOutcome
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import LeagueBot, Rating


def play_out(db: Database, ticket: MatchTicket, strengths: dict[int, float], luck: random.Random) -> None:
    """Finish the match as the simulation would: performance = strength + normal noise (beta)."""
    beta = settings_for(TEST_GAME).beta
    performance = [strengths[bot] + luck.gauss(0.0, beta) for bot in ticket.bot_ids]
    ranks = [1 + sum(other > mine for other in performance) for mine in performance]
    seats = tuple(
        SeatOutcome(seat, bot, 0, rank)
        for seat, (bot, rank) in enumerate(zip(ticket.bot_ids, ranks, strict=True))
    )
    finish_match(db, MatchOutcome(ticket.match_id, seats, "test-1"))


def test_a_ladder_through_the_store_plans_and_rates_what_the_simulation_does(db: Database) -> None:
    bots = make_bots(db, 8)
    strengths = {bot.id: 20.0 + 1.5 * index for index, bot in enumerate(bots)}
    league = create_league(
        db, "sim", TEST_GAME, [bot.name for bot in bots], format="ladder", players=3, max_matches=150, seed=7
    )
    luck = random.Random(7)
    played = []
    while tickets := claim_matches(db, league.id, 1):
        (ticket,) = tickets
        play_out(db, ticket, strengths, luck)
        played.append(ticket.bot_ids)
    simulated = simulate(strengths, 3, 150, 7)
    assert played == simulated.matches
    with db.read() as session:
        rows = session.exec(select(Rating).where(Rating.game == TEST_GAME)).all()
        copies = session.exec(select(LeagueBot).where(LeagueBot.league_id == league.id)).all()
    assert {row.bot_id: (row.mu, row.sigma) for row in rows} == simulated.ratings
    # The league's rows say what the seats say: planned counts, rating copies, pair meetings.
    seated = Counter(bot for match in played for bot in match)
    assert {row.bot_id: row.planned for row in copies} == dict(seated)
    assert {row.bot_id: (row.mu, row.sigma) for row in copies} == simulated.ratings
    names = {bot.id: bot.name for bot in bots}
    met = Counter(
        tuple(sorted((names[a], names[b]))) for match in played for a in match for b in match if a < b
    )
    pairs = league_pairs(db, league.id)
    assert {(p.bot, p.other): p.played for p in pairs} == dict(met)
    assert all(p.planned == p.played for p in pairs)


@contextmanager
def counting_statements(db: Database) -> Iterator[list[str]]:
    """Every SQL statement sent to the database meanwhile."""
    seen: list[str] = []

    def count(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", count)


def claim_costs(db: Database, league_id: int, claims: int, luck: random.Random) -> list[int]:
    """Statements per claim over ``claims`` claims, each match finished before the next claim."""
    costs = []
    for _ in range(claims):
        with counting_statements(db) as seen:
            (ticket,) = claim_matches(db, league_id, 1)
        costs.append(len(seen))
        play_out(db, ticket, dict.fromkeys(ticket.bot_ids, 25.0), luck)
    return costs


# Some 250 claims and matches, ~30 s of CPU alone on a loaded machine: beside three other test
# workers (pytest-xdist) and a load of 25 it once took over 300 s, counting, not waiting.
@pytest.mark.timeout(1200)
def test_a_claim_costs_the_same_statements_whatever_the_bots_and_matches_played(db: Database) -> None:
    few = make_bots(db, 10)
    many = few + make_bots(db, 90, first=10)
    small = create_league(db, "small", TEST_GAME, [b.name for b in few], format="ladder", seed=3)
    large = create_league(db, "large", TEST_GAME, [b.name for b in many], format="ladder", seed=3)
    luck = random.Random(1)
    cycle = 3 * 9  # three rounds of planning: one claim plans nine matches, eight claims plan none
    claim_costs(db, small.id, 9, luck)  # the first claim also stamps the league's start
    claim_costs(db, large.id, 9, luck)
    small_costs = claim_costs(db, small.id, cycle, luck)
    large_costs = claim_costs(db, large.id, cycle, luck)
    assert small_costs.count(max(small_costs)) == 3, "a planning claim every ninth: the shape measured"
    assert small_costs == large_costs
    claim_costs(db, large.id, 135, luck)  # 135 matches later...
    assert claim_costs(db, large.id, cycle, luck) == large_costs
