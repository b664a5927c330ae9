"""Results written in group commits (``ladder.result_batch``, ``server.refereeing.result_writer``): a batch
stores what one-at-a-time writes store, a refused result is left out alone, and a batch the
database fails leaves nothing behind, so the league's resume replays its matches as before."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from ladder_support import TEST_GAME, make_bots
from sqlalchemy.exc import OperationalError
from sqlmodel import col, select
from test_ladder_concurrent_finishes import check_every_update_counted, outcome

from kingmaker.ladder import result_batch
from kingmaker.ladder.claims import claim_with_runnables
from kingmaker.ladder.errors import ConflictError
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.ladder.leagues.leagues import claim_matches, create_league
from kingmaker.ladder.matches.history import match_summary
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import finish_match, mark_running
from kingmaker.ladder.records import FinishReport, MatchOutcome
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.ladder.storage.models import (
    League,
    LeaguePair,
    Match,
    MatchLog,
    MatchSeat,
    MatchStatus,
    Rating,
    RatingHistory,
)
from kingmaker.server.refereeing.result_writer import ResultWriter


def running_outcomes(db: Database, count: int, seed: int = 1, first_bot: int = 0) -> list[MatchOutcome]:
    """``count`` running matches of three new bots, every one sharing bots with the others."""
    rng = random.Random(seed)
    names = [bot.name for bot in make_bots(db, 3, first=first_bot)]
    tickets = [
        mark_running(db, create_match(db, TEST_GAME, rng.sample(names, 2), seed=number).match_id)
        for number in range(count)
    ]
    return [outcome(ticket, rng) for ticket in tickets]


def statuses(db: Database) -> dict[int, str]:
    with db.read() as session:
        return {match.id or 0: match.status for match in session.exec(select(Match))}


def test_a_batch_rates_its_matches_one_after_another(db: Database) -> None:
    outcomes = running_outcomes(db, 8)
    reports = result_batch.finish_matches(db, outcomes)
    assert all(isinstance(r, FinishReport) and r.status == MatchStatus.FINISHED for r in reports)
    check_every_update_counted(db)
    # Each match of the batch started from the rating the one before it left: none was lost.
    latest: dict[int, float] = {}
    for report in reports:
        assert isinstance(report, FinishReport)
        for change in report.rating_changes:
            if change.bot_id in latest:
                assert change.mu_before == latest[change.bot_id]
            latest[change.bot_id] = change.mu_after
    with db.read() as session:
        stored = {row.bot_id: row.mu for row in session.exec(select(Rating))}
    assert stored == latest
    # Sent again (a retry after a lost reply), every result counts once.
    again = result_batch.finish_matches(db, outcomes)
    assert all(isinstance(r, FinishReport) and r.already_recorded for r in again)
    check_every_update_counted(db)


def test_a_refused_result_is_left_out_and_the_others_are_kept(db: Database) -> None:
    outcomes = running_outcomes(db, 3)
    with db.transaction() as session:
        cancelled = session.get(Match, outcomes[1].match_id)
        assert cancelled is not None
        cancelled.status, cancelled.status_reason = MatchStatus.CANCELLED, "cancelled by a test"
        session.add(cancelled)
    first, refused, last = result_batch.finish_matches(db, outcomes)
    assert isinstance(first, FinishReport) and isinstance(last, FinishReport)
    assert isinstance(refused, ConflictError) and "cancelled" in str(refused)
    found = statuses(db)
    assert [found[o.match_id] for o in outcomes] == [
        MatchStatus.FINISHED,
        MatchStatus.CANCELLED,
        MatchStatus.FINISHED,
    ]
    check_every_update_counted(db)


def test_a_batch_the_database_fails_writes_nothing(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    outcomes = running_outcomes(db, 4)
    real = result_batch.record_in
    written: list[int] = []

    def fails_on_the_third(session, outcome, *args, **kwargs):  # type: ignore[no-untyped-def]
        if len(written) == 2:
            raise OperationalError("INSERT ...", {}, Exception("disk I/O error"))
        written.append(outcome.match_id)
        return real(session, outcome, *args, **kwargs)

    monkeypatch.setattr(result_batch, "record_in", fails_on_the_third)
    with pytest.raises(OperationalError):
        result_batch.finish_matches(db, outcomes)
    # As after a crash before the commit: every match still running, no rating moved.
    assert written == [o.match_id for o in outcomes[:2]]
    assert set(statuses(db).values()) == {MatchStatus.RUNNING}
    with db.read() as session:
        assert all(row.matches == 0 for row in session.exec(select(Rating)))
    monkeypatch.setattr(result_batch, "record_in", real)
    assert all(isinstance(r, FinishReport) for r in result_batch.finish_matches(db, outcomes))
    assert set(statuses(db).values()) == {MatchStatus.FINISHED}
    check_every_update_counted(db)


def test_results_arriving_together_share_one_commit(db: Database) -> None:
    outcomes = running_outcomes(db, 8)
    writer = ResultWriter(db)

    async def all_finish() -> list[FinishReport]:
        return await asyncio.gather(*(writer.finish(o) for o in outcomes))

    reports = asyncio.run(all_finish())
    assert [r.match_id for r in reports] == [o.match_id for o in outcomes]
    assert all(r.status == MatchStatus.FINISHED and not r.already_recorded for r in reports)
    assert (writer.batches, writer.results) == (1, 8)
    check_every_update_counted(db)
    # A result the ladder refuses fails its own caller only.
    refused = running_outcomes(db, 1, seed=2, first_bot=3)[0]
    with db.transaction() as session:
        match = session.get(Match, refused.match_id)
        assert match is not None
        match.status, match.status_reason = MatchStatus.CANCELLED, "cancelled by a test"
        session.add(match)
    with pytest.raises(ConflictError):
        asyncio.run(writer.finish(refused))
    assert finish_match(db, outcomes[0]).already_recorded


def test_each_stored_result_carries_the_progress_its_league_stream_sends(db: Database) -> None:
    names = [bot.name for bot in make_bots(db, 4)]
    league = create_league(db, "fed", TEST_GAME, names, seed=4)
    tickets = claim_matches(db, league.id, 3)
    rng = random.Random(3)
    reports = result_batch.finish_matches(db, [outcome(ticket, rng) for ticket in tickets])
    assert all(isinstance(r, result_batch.StoredResult) for r in reports)
    # As a read after each result would have found them: one more finished each time.
    finished = [
        r.counts[MatchStatus.FINISHED]
        for r in reports
        if isinstance(r, result_batch.StoredResult) and r.counts
    ]
    assert finished == [1, 2, 3]
    last = reports[-1]
    assert isinstance(last, result_batch.StoredResult)
    assert last.counts == league_progress(db, league.id)
    assert last.summary == match_summary(db, last.match_id)


def _stored_rows(db: Database) -> dict[str, list[tuple[object, ...]]]:
    """Everything a result writes, but times and row ids."""
    with db.read() as session:
        return {
            "seats": [
                (
                    s.match_id,
                    s.seat,
                    s.bot_id,
                    s.score,
                    s.game_rank,
                    s.rank,
                    s.strikes,
                    s.end_reason,
                    s.version,
                )
                for s in session.exec(
                    select(MatchSeat).order_by(col(MatchSeat.match_id), col(MatchSeat.seat))
                )
            ],
            "matches": [
                (m.id, m.status, m.status_reason, m.rated, m.seed)
                for m in session.exec(select(Match).order_by(col(Match.id)))
            ],
            "ratings": [
                (r.bot_id, r.mu, r.sigma, r.conservative, r.matches, r.wins, r.rank_sum, r.faults)
                for r in session.exec(select(Rating).order_by(col(Rating.bot_id)))
            ],
            "history": [
                (h.bot_id, h.match_id, h.matches, h.mu, h.sigma, h.conservative, h.version)
                for h in session.exec(
                    select(RatingHistory).order_by(col(RatingHistory.match_id), col(RatingHistory.bot_id))
                )
            ],
            "logs": [
                (log.match_id, log.actions, log.digests, log.timings)
                for log in session.exec(select(MatchLog).order_by(col(MatchLog.match_id)))
            ],
            "pairs": [
                (p.bot_id, p.other_id, p.played)
                for p in session.exec(
                    select(LeaguePair).order_by(col(LeaguePair.bot_id), col(LeaguePair.other_id))
                )
            ],
            "leagues": [(lg.id, lg.finished) for lg in session.exec(select(League))],
        }


def test_a_league_stored_in_batches_is_the_league_stored_one_result_at_a_time(
    db: Database, tmp_path: Path
) -> None:
    """The same seed and the same outcomes, claimed and stored one at a time in one database and
    in batches in another: the same rows, and each batch's progress is what a read finds."""
    alone = open_database(f"sqlite:///{tmp_path / 'alone.db'}")
    try:
        runs = []
        for database in (alone, db):
            names = [bot.name for bot in make_bots(database, 4)]
            league = create_league(database, "same", TEST_GAME, names, rounds=2, seed=9)
            runs.append((database, league.id))
        rng = {id(database): random.Random(5) for database, _ in runs}
        while True:
            (tickets_alone, _), (tickets_batch, _) = (
                claim_with_runnables(database, league_id, 3, frozenset()) for database, league_id in runs
            )
            assert tickets_alone == tickets_batch
            if not tickets_alone:
                break
            stored = []
            for database, tickets in ((alone, tickets_alone), (db, tickets_batch)):
                random_ = rng[id(database)]
                outcomes = [
                    outcome(ticket, random_, faulty_seat=1 if ticket.match_id % 4 == 0 else None)
                    for ticket in tickets
                ]
                if database is alone:
                    stored.append([finish_match(database, each) for each in outcomes])
                else:
                    stored.append(result_batch.finish_matches(database, outcomes))
            for one, batched in zip(*stored, strict=True):
                assert isinstance(batched, result_batch.StoredResult)
                assert (one.ranks, one.rating_changes, one.rated) == (
                    batched.ranks,
                    batched.rating_changes,
                    batched.rated,
                )
                summary = match_summary(db, batched.match_id)
                assert batched.summary == summary
            last = stored[1][-1]
            assert isinstance(last, result_batch.StoredResult)
            assert last.counts == league_progress(db, runs[1][1])
        assert _stored_rows(alone) == _stored_rows(db)
        assert _stored_rows(db)["leagues"] == [(runs[1][1], True)]
    finally:
        alone.close()
