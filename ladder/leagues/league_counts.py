"""How many of a league's matches are in each status: what `league status` and a league's
progress stream show after every result."""

from __future__ import annotations

from sqlmodel import Session

from kingmaker.ladder.leagues.leagues import league_row
from kingmaker.ladder.matches.matches import statuses_in
from kingmaker.ladder.storage.db import Database


def league_progress(db: Database, league_id: int) -> dict[str, int]:
    """How many of the league's matches are in each status."""
    with db.read() as session:
        league_row(session, league_id)
        return progress_in(session, league_id)


def progress_in(session: Session, league_id: int) -> dict[str, int]:
    """``league_progress`` inside the caller's transaction (``result_batch``)."""
    return statuses_in(session, league_id)
