"""Locking a match and its league for a transaction: always the league first, then the match,
so that two transactions never wait on each other in opposite orders (tests/ladder's lock-order
test). Used by whatever changes a match's or a league's state: a claim, a result, a plan."""

from __future__ import annotations

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.storage.models import League, Match

# The statements a result and a claim run, built once: building one costs several times what
# executing it does (``docs/scaling.md``).
_LEAGUE_OF_MATCH = (
    select(League)
    .where(
        col(League.id) == select(Match.league_id).where(col(Match.id) == bindparam("match")).scalar_subquery()
    )
    .with_for_update()
    .execution_options(populate_existing=True)
)
_MATCH = (
    select(Match)
    .where(col(Match.id) == bindparam("match"))
    .with_for_update()
    .execution_options(populate_existing=True)
)
_LEAGUE = (
    select(League)
    .where(col(League.id) == bindparam("league"))
    .with_for_update()
    .execution_options(populate_existing=True)
)


def locked_match_and_league(session: Session, match_id: int) -> tuple[Match, League | None]:
    """The match and its league (None for a one-off match), both locked, the league first: the
    league found by the match and locked in one query, then the match."""
    league = session.exec(_LEAGUE_OF_MATCH, params={"match": match_id}).first()
    match = session.exec(_MATCH, params={"match": match_id}).first()
    if match is None:
        raise NotFoundError(f"no match {match_id}")
    return match, league


def locked_match(session: Session, match_id: int) -> Match:
    """The match, locked for this transaction, after its league (always league first, then match)."""
    return locked_match_and_league(session, match_id)[0]


def lock_league(session: Session, league_id: int) -> League | None:
    """The league row, locked for this transaction (None if there is no such league). Whatever
    changes a league's plan or state takes this lock first."""
    return session.exec(_LEAGUE, params={"league": league_id}).first()
