"""Reading stored matches back: one match with its seats and bot names, or a filtered list."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from kingmaker.games.api import OptionValue
from kingmaker.ladder.bots import persons
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.compact_logs import unpack_timings
from kingmaker.ladder.matches.match_filter import MatchFilter
from kingmaker.ladder.matches.match_reads import SeatRecord, seat_record
from kingmaker.ladder.matches.think_times import THINK_KEY, ThinkTime, seat_samples, summarise
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot, League, Match, MatchLog, MatchSeat


@dataclass(frozen=True)
class MatchSummary:
    match_id: int
    league: str | None
    game: str
    seed: int
    options: dict[str, OptionValue]
    status: str
    status_reason: str | None
    rated: bool
    """False for a void match and for a finished one in which no seat played."""
    started_at: datetime | None
    finished_at: datetime | None
    bots: tuple[str, ...]
    """The bot name at each seat."""
    seats: tuple[SeatRecord, ...]
    think: tuple[ThinkTime, ...] = ()
    """Per seat, how long its bot took to decide; empty where the log holds no samples."""
    duplicate_group: int | None = None
    """Shared by a league's matches played from one group in every rotation of its seats."""


def match_summary(db: Database, match_id: int) -> MatchSummary:
    with db.read() as session:
        return summary_in(session, match_id)


def summary_in(session: Session, match_id: int) -> MatchSummary:
    """``match_summary`` inside the caller's transaction (``result_batch``, as it stores a result)."""
    match = session.get(Match, match_id)
    if match is None:
        raise NotFoundError(f"no match {match_id}")
    return _summary(session, match)


def list_matches(
    db: Database,
    league: str | None = None,
    game: str | None = None,
    limit: int = 50,
    before_id: int | None = None,
    with_people: bool = False,
    only: MatchFilter = MatchFilter(),
) -> list[MatchSummary]:
    """Matches, newest first, at most ``limit`` of them, older than ``before_id`` when given (the
    next page), only those a person played in with ``with_people``, and those ``only`` keeps;
    ``NotFoundError`` for a league or bot that does not exist."""
    with db.read() as session:
        query = select(Match).order_by(col(Match.id).desc()).limit(limit)
        if league:
            league_id = session.exec(select(League.id).where(League.name == league)).first()
            if league_id is None:
                raise NotFoundError(f"no league named {league!r}")
            query = query.where(Match.league_id == league_id)
        if game:
            query = query.where(Match.game == game)
        if before_id is not None:
            query = query.where(col(Match.id) < before_id)
        if with_people:
            seated = (
                select(MatchSeat.match_id)
                .join(Bot, col(Bot.id) == col(MatchSeat.bot_id))
                .where(col(Bot.name).startswith(persons.PREFIX, autoescape=True))
            )
            query = query.where(col(Match.id).in_(seated))
        query = only.applied(session, query)
        return [_summary(session, match) for match in session.exec(query).all()]


def _summary(session: Session, match: Match) -> MatchSummary:
    assert match.id is not None
    rows = session.exec(
        select(MatchSeat, Bot.name)
        .join(Bot, col(Bot.id) == col(MatchSeat.bot_id))
        .where(MatchSeat.match_id == match.id)
        .order_by(col(MatchSeat.seat))
    ).all()
    league = session.get(League, match.league_id) if match.league_id is not None else None
    packed = session.exec(select(MatchLog.timings).where(MatchLog.match_id == match.id)).first()
    timings = unpack_timings(packed) if packed is not None else None
    return summary_of(match, league.name if league is not None else None, list(rows), timings)


def summary_of(
    match: Match,
    league: str | None,
    seats: Sequence[tuple[MatchSeat, str]],
    timings: Mapping[str, Any] | None,
) -> MatchSummary:
    """A match's summary from its rows: the match, its league's name, its seats in order with
    their bots' names, and its log's timings, unpacked (None: no log)."""
    assert match.id is not None
    unpacked = timings or {}
    think = (
        tuple(summarise(seat_samples(unpacked, seat.seat)) for seat, _ in seats)
        if THINK_KEY in unpacked
        else ()
    )
    return MatchSummary(
        match_id=match.id,
        league=league,
        game=match.game,
        seed=match.seed,
        options=dict(match.options),
        status=match.status,
        status_reason=match.status_reason,
        rated=match.rated,
        started_at=match.started_at,
        finished_at=match.finished_at,
        bots=tuple(name for _, name in seats),
        seats=tuple(seat_record(row) for row, _ in seats),
        think=think,
        duplicate_group=match.duplicate_group,
    )
