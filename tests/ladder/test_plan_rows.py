"""A league's plan written in one go (``leagues.plan_rows``): every planned match and its seats,
ids in plan order, as the plan says (issue 50: two flushes a plan, not two a match)."""

from __future__ import annotations

from ladder_support import TEST_GAME, make_bots
from sqlmodel import col, select

from kingmaker.ladder.leagues.leagues import create_league
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import League, Match, MatchSeat, MatchStatus


def test_a_round_robin_is_written_as_planned_in_plan_order(db: Database) -> None:
    names = [bot.name for bot in make_bots(db, 6)]
    create_league(db, "rr", TEST_GAME, names, players=3, rounds=2, seed=5)
    with db.read() as session:
        league = session.exec(select(League).where(League.name == "rr")).one()
        matches = session.exec(
            select(Match).where(Match.league_id == league.id).order_by(col(Match.id))
        ).all()
        seats = session.exec(select(MatchSeat).order_by(col(MatchSeat.match_id), col(MatchSeat.seat))).all()
    assert [match.ordinal for match in matches] == list(range(len(matches))) and len(matches) == 40
    assert {match.status for match in matches} == {MatchStatus.SCHEDULED}
    seated: dict[int, tuple[int, ...]] = {}
    for seat in seats:
        seated[seat.match_id] = (*seated.get(seat.match_id, ()), seat.bot_id)
    assert all(len(seated[match.id or 0]) == 3 == len(set(seated[match.id or 0])) for match in matches)
    assert league.matches_planned == 40
