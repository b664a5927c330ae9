"""Which waiting matches of a league a claim takes: those whose bots are all free first, read
from a window of the plan, then further only when the window has none (``free_first`` in
``pairing`` chooses; this reads the window and locks what it chose, and writes the claim)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Executable, Select, bindparam, exists, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from kingmaker.ladder.pairing.free_first import choose_free
from kingmaker.ladder.storage.models import League, Match, MatchSeat, MatchStatus
from kingmaker.ladder.storage.tables import core_table, read_rows

CLAIM_LOOKAHEAD = 256
"""How far past the next matches in plan order a claim looks for one whose bots are all free (a
round robin's plan order puts a bot's matches together: 55 in a row for the first of 12 bots)."""


def free_first(
    session: Session, league: League, limit: int, busy: Collection[int], absent: frozenset[int]
) -> tuple[list[Match], dict[int, tuple[int, ...]]]:
    """``limit`` of the league's waiting matches, locked: first those whose bots are free (not
    ``busy``, and not in another match chosen here), then those whose busiest bot plays fewest
    matches, in plan order among equals; none with an ``absent`` bot.

    A bot already in play would need a second process (or a second connection's capacity) for a
    match that could as well wait: in a 12-bot, 3-player round robin 4 at a time, plan order
    launched 44 bot processes where 12 do, and starting each costs a Python interpreter. With no
    free match left (16 bots 8 at once), plan order would seat a round robin's first bot in many.
    The database is asked first for the first ``limit`` matches of the window with no busy or
    absent bot (``free_seats``): when they share no bot, they are what reading the whole window
    would choose, and a claim (made per match) reads their seats alone rather than the window's
    257 matches'. Only when they are too few does it read the window's ids and seats, not whole
    rows. Also returns the chosen matches' bots in seat order, by match id."""
    window = limit + CLAIM_LOOKAHEAD
    found = free_seats(session, league, limit, window, set(busy) | absent)
    chosen, all_free = choose_free(found, limit, busy, absent)
    if not all_free or len(chosen) < limit:  # too few free: the least busy of the window's
        chosen, _ = choose_free(waiting_seats(session, league, window), limit, busy, absent)
    ids = [match_id for match_id, _ in chosen]
    # Locked, and still waiting once locked: a bot's withdrawal (another transaction) must not
    # cancel a match claimed here, nor may one it cancelled meanwhile be claimed.
    rows = session.exec(_SCHEDULED_MATCHES, params={"ids": ids}).all()
    by_id = {match.id: match for match in rows}
    return [by_id[match_id] for match_id in ids if match_id in by_id], dict(chosen)


_matches, _seats = core_table(Match), core_table(MatchSeat)


def _seats_of(match_ids: Any) -> Select[tuple[int, int]]:
    """Each seat's bot of these matches (a scalar subquery), in plan order then seat order."""
    return (
        select(_seats.c.match_id, _seats.c.bot_id)
        .join(_matches, _matches.c.id == _seats.c.match_id)
        .where(_seats.c.match_id.in_(match_ids))
        .order_by(_matches.c.ordinal, _matches.c.id, _seats.c.seat)
    )


def _window_of(*columns: ColumnElement[Any]) -> Select[Any]:
    """The first ``window`` scheduled matches of ``league`` in plan order: the window a claim looks in."""
    return (
        select(*columns)
        .where(_matches.c.league_id == bindparam("league"), _matches.c.status == MatchStatus.SCHEDULED)
        .order_by(_matches.c.ordinal, _matches.c.id)
        .limit(bindparam("window"))
    )


_WAITING_SEATS = _seats_of(_window_of(_matches.c.id).scalar_subquery())
"""The window's matches, each seat's bot (built once: building a statement costs several times
what executing it does, and a claim is made per match)."""
_window = _window_of(_matches.c.id, _matches.c.ordinal).subquery()
_taken = _seats.alias("taken")
_FREE_SEATS = _seats_of(
    select(_window.c.id)
    .where(
        ~exists().where(
            _taken.c.match_id == _window.c.id,
            # ``+ 0``: the seats are looked up by match (two rows), not by each busy bot and match
            # (SQLite chose the latter, a lookup per busy bot per window match: twice the time).
            (_taken.c.bot_id + 0).in_(bindparam("taken", expanding=True)),
        )
    )
    .order_by(_window.c.ordinal, _window.c.id)
    .limit(bindparam("limit"))
    .scalar_subquery()
)
"""Of the first ``window`` scheduled matches in plan order, the first ``limit`` with no bot in
``taken``, each seat's bot (built once, as ``_WAITING_SEATS``)."""
_SCHEDULED_MATCHES = (
    select(Match)
    .where(col(Match.id).in_(bindparam("ids", expanding=True)), col(Match.status) == MatchStatus.SCHEDULED)
    .with_for_update()
    .execution_options(populate_existing=True)
)


def waiting_seats(session: Session, league: League, window: int) -> list[tuple[int, tuple[int, ...]]]:
    """The first ``window`` scheduled matches in plan order, each with its bots' ids in seat
    order (one query)."""
    return _by_match(session, _WAITING_SEATS, {"league": league.id, "window": window})


def free_seats(
    session: Session, league: League, limit: int, window: int, taken: Collection[int]
) -> list[tuple[int, tuple[int, ...]]]:
    """Of the first ``window`` scheduled matches in plan order, the first ``limit`` with no bot in
    ``taken``, each with its bots' ids in seat order (one query)."""
    params = {"league": league.id, "window": window, "limit": limit, "taken": sorted(taken)}
    return _by_match(session, _FREE_SEATS, params)


def _by_match(
    session: Session, statement: Executable, params: dict[str, Any]
) -> list[tuple[int, tuple[int, ...]]]:
    # A Core statement on the session's connection: a claim reads up to 257 matches' seats, and
    # the ORM's handling of each row cost more than the read (nothing of it is an ORM object).
    rows = read_rows(session, statement, params)
    seats: dict[int, list[int]] = {}
    for match_id, bot_id in rows:
        if match_id in seats:
            seats[match_id].append(bot_id)
        else:
            seats[match_id] = [bot_id]
    return [(match_id, tuple(bots)) for match_id, bots in seats.items()]


_CLAIMED = (
    update(_matches)
    .where(_matches.c.id == bindparam("of_match"))
    .values(
        status=bindparam("new_status"),
        status_reason=bindparam("new_reason"),
        started_at=bindparam("new_start"),
    )
)


def mark_claimed(match: Match, status: str, reason: str | None, started_at: datetime | None) -> None:
    """Give the claimed (or cancelled) match its new state as if written already: ``write_claimed``
    writes it with one Core statement, cheaper per claim than the ORM's unit of work."""
    set_committed_value(match, "status", status)
    set_committed_value(match, "status_reason", reason)
    set_committed_value(match, "started_at", started_at)


def write_claimed(session: Session, matches: Sequence[Match]) -> None:
    """Write what ``mark_claimed`` gave these matches (one statement, run once per match)."""
    if matches:
        params = [
            {
                "of_match": m.id,
                "new_status": m.status,
                "new_reason": m.status_reason,
                "new_start": m.started_at,
            }
            for m in matches
        ]
        session.connection().execute(_CLAIMED, params)
