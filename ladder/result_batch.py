"""Several finished matches' results in one transaction: a group commit.

Each result is written exactly as ``matches.finish_match`` writes it alone. A result the ladder
refuses (a cancelled match, a malformed outcome) is rolled back by itself and reported to its
caller while the others are kept: the batch is first written without savepoints (nearly every
result is taken, and each savepoint costs PostgreSQL two round trips), and if one result is
refused, that transaction is rolled back and the batch written again, each result in a savepoint
of its own. The database failing (busy, gone,
a PostgreSQL deadlock) fails the whole batch, and nothing of it is written: the caller tries the
whole batch again, as it would one result. Nothing is committed before the batch is, so a crash
leaves every match of the batch *running*, and the league's resume replays them, as after a
crash before a single result's commit.

Each stored result also carries what the league's progress stream sends about it (the match's
summary, the league's matches by status just after it), read in the same transaction: the
stream is fed by the results themselves rather than by reads of its own per match and watcher.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import Session

from kingmaker.ladder.leagues.league_counts import progress_in
from kingmaker.ladder.matches.history import MatchSummary, summary_in, summary_of
from kingmaker.ladder.matches.matches import Recorded, record_in
from kingmaker.ladder.records import FinishReport, MatchOutcome
from kingmaker.ladder.storage.db import Database, retrying
from kingmaker.ladder.storage.models import Match


@dataclass(frozen=True)
class StoredResult(FinishReport):
    """A result stored in a batch, with what its league's progress stream sends about it."""

    summary: MatchSummary | None = None
    counts: dict[str, int] | None = None
    """The league's matches by status just after this result (None for a one-off match)."""


def finish_matches(db: Database, outcomes: Sequence[MatchOutcome]) -> list[FinishReport | Exception]:
    """Record these matches' ends in one transaction; per outcome, its report or the error that
    refused it (that one alone is not written)."""
    return retrying(_finish_matches, db, outcomes)


def _finish_matches(db: Database, outcomes: Sequence[MatchOutcome]) -> list[FinishReport | Exception]:
    try:
        return _finish_all(db, outcomes)
    except _Refused:  # rolled back: write them again, each in a savepoint of its own
        return _finish_each(db, outcomes)


class _Refused(Exception):
    """A result of a batch written without savepoints was refused."""


def _finish_all(db: Database, outcomes: Sequence[MatchOutcome]) -> list[FinishReport | Exception]:
    """The batch with no savepoint (two round trips per result fewer): nearly every result is
    taken. If one is refused, the whole transaction is rolled back (``_Refused``) and the batch
    written again by ``_finish_each``, so that what is stored is what that alone stores."""
    found: list[FinishReport | Exception] = []
    with db.transaction(flushed=False) as session:  # a restart replays what a crash loses
        for outcome in outcomes:
            try:
                recorded = record_in(session, outcome, counts=True)
                found.append(_with_progress(session, recorded))
            except OperationalError:
                raise  # the database, not this result: the whole batch is tried again
            except DBAPIError as error:
                if error.connection_invalidated:
                    raise
                raise _Refused from error
            except Exception as error:
                raise _Refused from error
    return found


def _finish_each(db: Database, outcomes: Sequence[MatchOutcome]) -> list[FinishReport | Exception]:
    found: list[FinishReport | Exception] = []
    with db.transaction(flushed=False) as session:  # a restart replays what a crash loses
        for outcome in outcomes:
            try:
                with session.begin_nested():
                    recorded = record_in(session, outcome, counts=True)
                    stored = _with_progress(session, recorded)
            except OperationalError:
                raise  # the database, not this result: the whole batch is tried again
            except DBAPIError as error:
                if error.connection_invalidated:
                    raise
                found.append(error)
                session.expire_all()  # ``record_in`` sets rows as written: read them again
            except Exception as error:
                found.append(error)
                session.expire_all()
            else:
                found.append(stored)
        return found


def _with_progress(session: Session, recorded: Recorded) -> StoredResult:
    """The report with the match's summary and its league's counts: from the rows just written
    when the result was, else (already recorded, voided) read back."""
    report = recorded.report
    known = {field.name: getattr(report, field.name) for field in fields(FinishReport)}
    match = recorded.match
    if match is not None and recorded.log is not None:
        league = recorded.league.name if recorded.league is not None else None
        # The timings as the result gave them: what unpacking the log's would give back, exactly.
        summary = summary_of(match, league, recorded.seats, recorded.timings)
        return StoredResult(**known, summary=summary, counts=recorded.counts)
    found = session.get(Match, report.match_id)
    league_id = found.league_id if found is not None else None
    return StoredResult(
        **known,
        summary=summary_in(session, report.match_id),
        counts=progress_in(session, league_id) if league_id is not None else None,
    )
