"""Reading stored matches back: one match with its seats and bot names, or a filtered list."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from kingmaker.games.api import OptionValue
from kingmaker.ladder.bots import persons
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.compact_logs import unpack_think_times
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
        return _summaries(session, session.exec(query).all())


def _summary(session: Session, match: Match) -> MatchSummary:
    return _summaries(session, [match])[0]


def _summaries(session: Session, matches: Sequence[Match]) -> list[MatchSummary]:
    """The matches' summaries from three reads for all of them (their seats, leagues and think
    times), not three a match: a list of a thousand matches was three thousand reads."""
    found: list[MatchSummary] = []
    for start in range(0, len(matches), _AT_ONCE):
        some = matches[start : start + _AT_ONCE]
        ids = [match.id for match in some]
        seats: dict[int, list[tuple[MatchSeat, str]]] = defaultdict(list)
        for seat, name in session.exec(
            select(MatchSeat, Bot.name)
            .join(Bot, col(Bot.id) == col(MatchSeat.bot_id))
            .where(col(MatchSeat.match_id).in_(ids))
            .order_by(col(MatchSeat.match_id), col(MatchSeat.seat))
        ):
            seats[seat.match_id].append((seat, name))
        league_ids = {match.league_id for match in some if match.league_id is not None}
        named = select(League.id, League.name).where(col(League.id).in_(league_ids))
        leagues: dict[int | None, str] = dict(session.exec(named).all())
        logs = select(MatchLog.match_id, MatchLog.timings).where(col(MatchLog.match_id).in_(ids))
        packed: dict[int, bytes | None] = dict(session.exec(logs).all())
        for match in some:
            assert match.id is not None
            blob = packed.get(match.id)
            think = unpack_think_times(blob) if blob is not None else None
            # (of a log's timings, a summary reads only the think times)
            timings = {THINK_KEY: think} if think is not None else None
            league = leagues.get(match.league_id) if match.league_id is not None else None
            found.append(summary_of(match, league, seats[match.id], timings))
    return found


_AT_ONCE = 500
"""Matches summarised per round of reads (the ids of each go into one ``IN``)."""


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
