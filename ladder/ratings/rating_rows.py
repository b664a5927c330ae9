"""A rated match's rating rows, written with Core statements: the seats' rows read and locked in
one query, updated in one statement (executemany), their history in one insert. The same code
moves the separate "with people" ratings (``PeopleRating``, docs/play.md), which keep no history.

The rows are locked in bot id order, so that two finishes never wait for each other in a circle
(``matches.finish_match``). Core statements rather than ORM objects: a result is written per
match, and the ORM's unit of work cost more than the writes themselves.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Executable, bindparam, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from kingmaker.ladder.ratings.ratings import conservative, new_rating, rate
from kingmaker.ladder.records import RatingChange
from kingmaker.ladder.storage.models import Match, MatchSeat, PeopleRating, Rating, RatingHistory, utc_now
from kingmaker.ladder.storage.tables import core_table

RatingTable = type[Rating] | type[PeopleRating]
"""The ladder's ratings, or the separate ratings of the matches with people."""


def rate_seats(
    session: Session,
    match: Match,
    seats: Sequence[MatchSeat],
    ranks: Sequence[int],
    faulty: Sequence[bool],
    table: RatingTable = Rating,
) -> list[RatingChange]:
    """Move the seats' ratings and counters in ``table``, and write their history rows (the
    ladder's only)."""
    assert match.id is not None
    rows = locked_ratings(session, [seat.bot_id for seat in seats], match.game, table)
    updated = rate(match.game, [(row["mu"], row["sigma"]) for row in rows], list(ranks))
    now = utc_now()
    changes: list[RatingChange] = []
    changed: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []
    for seat, rank, fault, row, (mu, sigma) in zip(seats, ranks, faulty, rows, updated, strict=True):
        changes.append(RatingChange(row["bot_id"], match.game, row["mu"], row["sigma"], mu, sigma))
        steady = conservative(mu, sigma)
        matches = row["matches"] + 1
        changed.append(
            {
                "row_id": row["id"],
                "new_mu": mu,
                "new_sigma": sigma,
                "new_conservative": steady,
                "new_matches": matches,
                "new_wins": row["wins"] + (rank == 1),
                "new_rank_sum": row["rank_sum"] + rank,
                "new_faults": row["faults"] + fault,
                "new_updated_at": now,
            }
        )
        history.append(
            {
                "bot_id": row["bot_id"],
                "game": match.game,
                "match_id": match.id,
                "matches": matches,
                "mu": mu,
                "sigma": sigma,
                "conservative": steady,
                "recorded_at": now,
                "version": seat.version,
            }
        )
    connection = session.connection()
    connection.execute(_statements(table).update, changed)
    if table is Rating:
        connection.execute(_INSERT_HISTORY, history)
    return changes


def locked_ratings(
    session: Session, bot_ids: Sequence[int], game: str, table: RatingTable = Rating
) -> list[dict[str, Any]]:
    """The bots' rating rows in ``game`` (in the order given, as mappings), locked in bot id
    order. Rows exist from registration on; a bot without one (a game added by hand, or a first
    match with people) gets it here, without failing if another transaction adds the same row
    at the same moment."""
    params = {"game": game, "bots": list(bot_ids)}
    locked = _statements(table).locked
    by_bot = {row["bot_id"]: row for row in session.connection().execute(locked, params).mappings()}
    if len(by_bot) < len(set(bot_ids)):
        _insert_missing(session, [bot_id for bot_id in bot_ids if bot_id not in by_bot], game, table)
        by_bot = {row["bot_id"]: row for row in session.connection().execute(locked, params).mappings()}
    return [dict(by_bot[bot_id]) for bot_id in bot_ids]


def _insert_missing(session: Session, bot_ids: Sequence[int], game: str, table: RatingTable) -> None:
    missing = [table.model_validate(new_rating(bot_id, game).model_dump()) for bot_id in bot_ids]
    dialect = session.get_bind().dialect.name
    if dialect not in ("postgresql", "sqlite"):
        session.add_all(missing)
        session.flush()
        return
    insert_ = postgresql.insert if dialect == "postgresql" else sqlite.insert
    values = [row.model_dump(exclude={"id"}) for row in missing]
    session.execute(insert_(table).values(values).on_conflict_do_nothing(index_elements=["bot_id", "game"]))


@dataclass(frozen=True)
class _Statements:
    locked: Executable
    update: Executable


# Built once per table, executed on the session's connection: building a statement, and the
# session's handling of a Core one, cost several times what executing it does (``docs/scaling.md``).
@functools.cache
def _statements(model: RatingTable) -> _Statements:
    ratings = core_table(model)
    locked = (
        select(ratings)
        .where(ratings.c.game == bindparam("game"), ratings.c.bot_id.in_(bindparam("bots", expanding=True)))
        .order_by(ratings.c.bot_id)
        .with_for_update()
    )
    moved = (
        update(ratings)
        .where(ratings.c.id == bindparam("row_id"))
        .values(
            mu=bindparam("new_mu"),
            sigma=bindparam("new_sigma"),
            conservative=bindparam("new_conservative"),
            matches=bindparam("new_matches"),
            wins=bindparam("new_wins"),
            rank_sum=bindparam("new_rank_sum"),
            faults=bindparam("new_faults"),
            updated_at=bindparam("new_updated_at"),
        )
    )
    return _Statements(locked, moved)


_INSERT_HISTORY = insert(core_table(RatingHistory))


__all__ = ["locked_ratings", "rate_seats"]
