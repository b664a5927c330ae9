"""Several finished matches' results in one transaction: a group commit.

Each result is written exactly as ``matches.finish_match`` writes it alone, in a savepoint of its
own, so a result the ladder refuses (a cancelled match, a malformed outcome) is rolled back by
itself and reported to its caller while the others are kept. The database failing (busy, gone,
a PostgreSQL deadlock) fails the whole batch, and nothing of it is written: the caller tries the
whole batch again, as it would one result. Nothing is committed before the batch is, so a crash
leaves every match of the batch *running*, and the league's resume replays them, as after a
crash before a single result's commit.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.exc import DBAPIError, OperationalError

from kingmaker.ladder.db import Database, retrying
from kingmaker.ladder.matches import finish_in
from kingmaker.ladder.records import FinishReport, MatchOutcome


def finish_matches(db: Database, outcomes: Sequence[MatchOutcome]) -> list[FinishReport | Exception]:
    """Record these matches' ends in one transaction; per outcome, its report or the error that
    refused it (that one alone is not written)."""
    return retrying(_finish_matches, db, outcomes)


def _finish_matches(db: Database, outcomes: Sequence[MatchOutcome]) -> list[FinishReport | Exception]:
    found: list[FinishReport | Exception] = []
    with db.transaction() as session:
        for outcome in outcomes:
            try:
                with session.begin_nested():
                    found.append(finish_in(session, outcome))
            except OperationalError:
                raise  # the database, not this result: the whole batch is tried again
            except DBAPIError as error:
                if error.connection_invalidated:
                    raise
                found.append(error)
            except Exception as error:
                found.append(error)
    return found
