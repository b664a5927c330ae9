"""How many of a league's matches are in each status: what `league status` and a league's
progress stream show after every result."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, col, select

from kingmaker.ladder.db import Database
from kingmaker.ladder.leagues import league_row
from kingmaker.ladder.models import Match, MatchStatus


def league_progress(db: Database, league_id: int) -> dict[str, int]:
    """How many of the league's matches are in each status."""
    with db.read() as session:
        league_row(session, league_id)
        return progress_in(session, league_id)


def progress_in(session: Session, league_id: int) -> dict[str, int]:
    """``league_progress`` inside the caller's transaction (``result_batch``)."""
    rows = session.exec(
        select(Match.status, func.count()).where(Match.league_id == league_id).group_by(col(Match.status))
    ).all()
    return dict.fromkeys(MatchStatus.ALL, 0) | dict(rows)
