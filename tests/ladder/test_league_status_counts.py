"""A league's matches by status (its progress) are read from rows the database's triggers keep
(``storage.status_counts``, revision 0023), no longer counted from the matches at every result:
after every kind of write that moves a match (planning, claims, results, voids, a resume, a
disabled bot's cancellations, a replay, a ladder planning as it goes, one-off matches, which
belong to no league), they are what counting the matches gives, on SQLite and PostgreSQL; and the
revision fills them for the leagues already there."""

from __future__ import annotations

import functools
import random
from datetime import UTC, datetime
from pathlib import Path

from alembic.script import ScriptDirectory
from ladder_support import TEST_GAME, insert_row, make_bots
from sqlalchemy import create_engine, text
from test_ladder_concurrent_finishes import outcome

from kingmaker.ladder.bots.bots import set_enabled
from kingmaker.ladder.claims import claim_with_runnables
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.ladder.leagues.league_lifecycle import resume_league
from kingmaker.ladder.leagues.leagues import create_league
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running, void_match
from kingmaker.ladder.records import MatchTicket
from kingmaker.ladder.result_batch import finish_matches
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.migrate import alembic_config, upgrade
from kingmaker.ladder.storage.models import MatchStatus


def counted(db: Database, league_id: int) -> dict[str, int]:
    """The league's matches by status, counted from the matches themselves."""
    with db.read() as session:
        rows = session.connection().execute(
            text('SELECT status, count(*) FROM "match" WHERE league_id = :league GROUP BY status'),
            {"league": league_id},
        )
        return dict.fromkeys(MatchStatus.ALL, 0) | dict(rows.all())


def kept_right(db: Database, *league_ids: int) -> None:
    for league_id in league_ids:
        assert league_progress(db, league_id) == counted(db, league_id)


def test_every_write_that_moves_a_match_keeps_the_counts(db: Database) -> None:
    rng = random.Random(5)
    names = [bot.name for bot in make_bots(db, 6)]
    league = create_league(db, "robin", TEST_GAME, names, rounds=2, seed=3).id
    ladder = create_league(db, "ladder", TEST_GAME, names[:4], seed=4, format="ladder").id
    kept_right(db, league, ladder)
    assert sum(league_progress(db, league).values()) > 0

    def claimed(league_id: int, limit: int) -> list[MatchTicket]:
        tickets, _ = claim_with_runnables(db, league_id, limit, set())
        kept_right(db, league, ladder)
        return tickets

    first = claimed(league, 3)
    finish_matches(db, [outcome(ticket, rng) for ticket in first[:2]])  # finished
    kept_right(db, league, ladder)
    void_match(db, first[2].match_id, "the server failed it")  # void, and a replay planned
    kept_right(db, league, ladder)
    finish_match(db, outcome(claimed(league, 1)[0], rng))
    claimed(league, 2)
    assert resume_league(db, league) == 2  # running -> scheduled
    kept_right(db, league, ladder)
    set_enabled(db, names[0], False)  # its waiting matches cancelled
    kept_right(db, league, ladder)
    set_enabled(db, names[0], True)
    for ticket in claimed(ladder, 2) + claimed(ladder, 2):  # a ladder plans as it is claimed
        finish_match(db, outcome(ticket, rng))
    kept_right(db, league, ladder)
    one_off = create_match(db, TEST_GAME, names[1:3], seed=1).match_id  # no league: no count
    finish_match(db, outcome(mark_running(db, one_off), rng))
    kept_right(db, league, ladder)
    statuses = {status for status, n in league_progress(db, league).items() if n}
    moved = {MatchStatus.FINISHED, MatchStatus.VOID, MatchStatus.SCHEDULED, MatchStatus.CANCELLED}
    assert moved <= statuses, statuses  # each kind of write above happened


def test_the_revision_counts_the_leagues_already_there(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    before = ScriptDirectory.from_config(alembic_config()).get_revision("0023").down_revision
    assert isinstance(before, str)
    upgrade(engine, before)
    now = datetime(2026, 11, 30, tzinfo=UTC)
    statuses = ["finished"] * 5 + ["void", "scheduled", "scheduled", "running", "cancelled"]
    with engine.begin() as connection:
        insert = functools.partial(insert_row, connection)

        for league in (1, 2):
            insert("league", id=league, name=f"old-{league}", game="kingdoms", format="round_robin",
                   players=2, seed=1, duplicate=False, options="{}", settings="{}", groups_planned=0,
                   matches_planned=0, finished=False, paused=False, created_at=now)  # fmt: skip
        for number, status in enumerate(statuses * 2):
            league = None if number == 3 else 1 + number // len(statuses)
            insert("match", league_id=league, ordinal=number, game="kingdoms", players=2, seed=9,
                   options="{}", status=status, rated=True, rated_with_people=False,
                   created_at=now)  # fmt: skip
    upgrade(engine)
    with engine.connect() as connection:
        kept = connection.execute(text("SELECT league_id, status, matches FROM leaguestatuscount")).all()
    engine.dispose()
    assert sorted(kept) == [
        (1, "cancelled", 1), (1, "finished", 4), (1, "running", 1), (1, "scheduled", 2), (1, "void", 1),
        (2, "cancelled", 1), (2, "finished", 5), (2, "running", 1), (2, "scheduled", 2), (2, "void", 1),
    ]  # fmt: skip
