"""A match's life in the database, so that no result is ever lost or counted twice.

1. ``schedule_match`` (through a league, or ``create_match`` for a one-off) writes the match and its
   seats with status *scheduled* before any bot hears of it.
2. ``mark_running`` flips it to *running* just before the referee starts it.
3. ``finish_match`` writes, in ONE transaction: the seats' results, the ratings and their counters,
   the rating history, the match log and the status *finished*. The match row is locked first and
   a match already finished is reported, not counted again. Where transactions really run at once
   (PostgreSQL), it locks rows in one order, so that two finishes never deadlock and never lose
   each other's update: the league (its closing and replays), the match, the seats' rating rows by
   bot id (the counters), then the faulty seats' bots by id (the suspension count).
4. If the server failed the match (a seat ``is_server_fault``: ``ABORTED``, ``SEAT_UNFILLED``; or
   ``void_match``), the match becomes *void*: nothing is rated and no fault counted. A league match
   is replayed by a fresh row with the same seed and seats, up to ``MAX_TRIES`` plays in all; a
   one-off match is not (nothing would play the replay: its caller hears that it was void).
5. If no seat played (every seat ended by its own bot's fault), the match is *finished* but not
   rated: the faults are recorded and count toward suspension, but nobody wins anything.
6. A match with a person is never rated on the ladder; one created ``rated_with_people`` moves
   its seats' separate "with people" ratings instead, in the same transaction (docs/play.md).

After a crash, ``league_lifecycle.resume_league`` puts *running* matches back to *scheduled*; they replay
from scratch because nothing of them was written but their plan. ``void_interrupted_one_offs``
voids the one-off matches a dead server left behind.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from kingmaker.games.api import OptionValue
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, NotFoundError
from kingmaker.ladder.matches.compact_logs import pack_log
from kingmaker.ladder.matches.fault_counts import count_faults
from kingmaker.ladder.matches.faults import suspend_if_faulty
from kingmaker.ladder.matches.locks import locked_match, locked_match_and_league
from kingmaker.ladder.matches.result_rows import insert_log, mark_finished, seat_result, write_seat_results
from kingmaker.ladder.matches.seat_logs import drop_old_stderr, seat_log
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.pairing.league_pool import note_rated
from kingmaker.ladder.ratings.rating_rows import rate_seats
from kingmaker.ladder.ratings.ratings import ladder_ranks
from kingmaker.ladder.records import (
    FinishReport,
    MatchOutcome,
    MatchTicket,
    PackedLog,
    SeatOutcome,
)
from kingmaker.ladder.storage.db import Database, retrying
from kingmaker.ladder.storage.models import (
    Bot,
    League,
    LeagueStatusCount,
    Match,
    MatchSeat,
    MatchStatus,
    PeopleRating,
    utc_now,
)
from kingmaker.ladder.storage.tables import read_rows

MAX_TRIES = 3
"""How many times a league match is played when the server keeps failing it (then it stays void)."""


def mark_running(db: Database, match_id: int) -> MatchTicket:
    """Scheduled -> running, just before the referee starts the match."""
    return retrying(_mark_running, db, match_id)


def _mark_running(db: Database, match_id: int) -> MatchTicket:
    with db.transaction() as session:
        match = locked_match(session, match_id)
        if match.status != MatchStatus.SCHEDULED:
            raise ConflictError(f"match {match_id} is {match.status}, not scheduled")
        match.status = MatchStatus.RUNNING
        match.started_at = utc_now()
        session.add(match)
        if match.league_id is not None:
            league = session.get(League, match.league_id)
            if league is not None and league.started_at is None:
                league.started_at = match.started_at
                session.add(league)
        return ticket(session, match)


def finish_match(db: Database, outcome: MatchOutcome) -> FinishReport:
    """Record a match's end in one transaction; a second call for the same match counts nothing."""
    return retrying(_finish_match, db, outcome)


def _finish_match(db: Database, outcome: MatchOutcome) -> FinishReport:
    with db.transaction() as session:
        return finish_in(session, outcome)


def finish_in(session: Session, outcome: MatchOutcome) -> FinishReport:
    """``finish_match`` inside a transaction the caller opened."""
    return record_in(session, outcome).report


@dataclass
class Recorded:
    """A result written by ``record_in``, with the rows it wrote, so that its caller reads none of
    them back (``result_batch`` builds the progress stream's summary of the match from them)."""

    report: FinishReport
    match: Match | None = None
    """The match as written; None when nothing was (already recorded, voided)."""
    league: League | None = None
    seats: list[tuple[MatchSeat, str]] = field(default_factory=list)
    """The seats as written, each with its bot's name."""
    log: PackedLog | None = None
    """The log's three blobs as written."""
    timings: Mapping[str, Any] | None = None
    """The log's timings before they were packed (``compact_logs.unpack_timings`` gives them back)."""
    counts: dict[str, int] | None = None
    """The league's matches by status just after this result (if asked for)."""


def record_in(session: Session, outcome: MatchOutcome, counts: bool = False) -> Recorded:
    """``finish_match`` inside a transaction the caller opened (``result_batch`` writes several
    results in one). ``counts``: read the league's matches by status once the result is written."""
    match, league = locked_match_and_league(session, outcome.match_id)
    if match.status in (MatchStatus.FINISHED, MatchStatus.VOID):
        return Recorded(_already_recorded(session, match))
    if match.status == MatchStatus.CANCELLED:
        raise ConflictError(f"match {match.id} was cancelled: {match.status_reason}")
    named = _named_seats(session, outcome.match_id)
    seats = [seat for seat, _ in named]
    ordered = _check_outcome(outcome, seats)
    failed = [s for s in ordered if s.end_reason.is_server_fault]
    if failed:
        first = next((s for s in failed if s.end_reason is EndReason.SEAT_UNFILLED), failed[0])
        reason = f"seat {first.seat} {first.end_reason.value}: {first.detail or 'server fault'}"
        return Recorded(_void(session, match, seats, reason, ordered))
    return _record(session, match, league, named, ordered, outcome, counts)


def void_match(db: Database, match_id: int, reason: str) -> FinishReport:
    """The server failed this match: void it (nothing rated) and schedule a replay."""
    return retrying(_void_match, db, match_id, reason)


def _void_match(db: Database, match_id: int, reason: str) -> FinishReport:
    with db.transaction() as session:
        match = locked_match(session, match_id)
        if match.status in (MatchStatus.FINISHED, MatchStatus.VOID):
            return _already_recorded(session, match)
        if match.status == MatchStatus.CANCELLED:
            raise ConflictError(f"match {match_id} was cancelled: {match.status_reason}")
        return _void(session, match, seat_rows(session, match_id), reason, None)


def ticket(session: Session, match: Match, bot_ids: tuple[int, ...] | None = None) -> MatchTicket:
    """The match as the referee gets it; ``bot_ids``: its seats' bots in order, if already read."""
    assert match.id is not None
    return MatchTicket(
        match_id=match.id,
        league_id=match.league_id,
        game=match.game,
        seed=match.seed,
        options=dict(match.options),
        bot_ids=bot_ids
        if bot_ids is not None
        else tuple(seat.bot_id for seat in seat_rows(session, match.id)),
        status=match.status,
        ordinal=match.ordinal,
        duplicate_group=match.duplicate_group,
    )


def _record(
    session: Session,
    match: Match,
    league: League | None,
    named: list[tuple[MatchSeat, str]],
    ordered: list[SeatOutcome],
    outcome: MatchOutcome,
    counts: bool,
) -> Recorded:
    assert match.id is not None
    seats = [seat for seat, _ in named]
    faulty = [s.end_reason.is_bot_fault for s in ordered]
    asked_unrated = not match.rated  # created so (a match an author asked for)
    rated = not asked_unrated and not all(faulty)
    ranks = ladder_ranks([s.rank for s in ordered], faulty) if not all(faulty) else ()
    rows = [seat_result(s, given, rank) for s, given, rank in itertools.zip_longest(seats, ordered, ranks)]
    write_seat_results(session, rows)
    for given in ordered:
        if given.has_log:
            session.add(seat_log(match.id, given))
            drop_old_stderr(session, given.bot_id)
    changes = rate_seats(session, match, seats, ranks, faulty) if rated else []
    if match.rated_with_people and ranks:  # apart from the ladder, which it never touches
        rate_seats(session, match, seats, ranks, faulty, PeopleRating)
    note_rated(session, match.league_id, changes)
    status_reason = match.status_reason
    if not rated and not asked_unrated:
        status_reason = (
            "not rated: no seat played ("
            + ", ".join(f"seat {s.seat} {s.end_reason.value}" for s in ordered)
            + ")"
        )
    packed = outcome.packed or pack_log(match.game, outcome.actions, outcome.digests, outcome.timings)
    mark_finished(session, match, rated, status_reason)
    log = {
        "match_id": match.id,
        "game": match.game,
        "rules_edition": outcome.rules_edition,
        "seed": match.seed,
        "options": dict(match.options),
        "actions": packed.actions,
        "digests": packed.digests,
        "timings": packed.timings,
    }
    insert_log(session, log)
    session.flush()  # what else is pending (a seat's log) is written before the bots are locked
    _lock_bots(session, [seat.bot_id for seat, fault in zip(seats, faulty, strict=True) if fault])
    count_faults(session, match.id, seats)
    suspended = [
        seat.bot_id
        for seat, fault in zip(seats, faulty, strict=True)
        if fault and suspend_if_faulty(session, seat)
    ]
    by_status = statuses_in(session, match.league_id) if counts and match.league_id is not None else None
    if by_status is None:
        close_league_if_done(session, match.league_id, league)
    elif not by_status[MatchStatus.SCHEDULED] and not by_status[MatchStatus.RUNNING]:
        _close(session, league)  # nothing of it waits or runs: the counts just read say so
    report = FinishReport(
        match_id=match.id,
        status=match.status,
        ranks=ranks,
        rating_changes=tuple(changes),
        suspended_bot_ids=tuple(suspended),
        rated=match.rated,
    )
    return Recorded(report, match, league, named, packed, outcome.timings, by_status)


def _void(
    session: Session,
    match: Match,
    seats: list[MatchSeat],
    reason: str,
    ordered: list[SeatOutcome] | None,
) -> FinishReport:
    assert match.id is not None
    if ordered is not None:
        # Kept for the record only: a void match rates nothing and counts toward no suspension.
        for seat, given in zip(seats, ordered, strict=True):
            seat.score, seat.game_rank, seat.strikes = given.score, given.rank, given.strikes
            seat.end_reason, seat.detail = given.end_reason.value, given.detail
            seat.stderr_tail = given.stderr_tail or None
            seat.version = given.version
            session.add(seat)
    match.status = MatchStatus.VOID
    match.status_reason = reason
    match.finished_at = utc_now()
    match.rated = False
    session.add(match)
    replay_id = None
    tries = _tries(session, match)
    if match.league_id is None:
        match.status_reason += " (a one-off match is not replayed)"
    elif tries >= MAX_TRIES:
        match.status_reason += f" (given up after {tries} tries)"
    else:
        replay_id = schedule_match(
            session,
            game=match.game,
            seed=match.seed,
            options=match.options,
            bot_ids=[seat.bot_id for seat in seats],
            league_id=match.league_id,
            ordinal=match.ordinal,
            duplicate_group=match.duplicate_group,
            replay_of=match.id,
        ).id
    session.flush()
    close_league_if_done(session, match.league_id)
    return FinishReport(match_id=match.id, status=match.status, replay_match_id=replay_id, rated=False)


def _tries(session: Session, match: Match) -> int:
    """How many times this match's plan has been played: it and the void matches it replays."""
    tries = 1
    earlier = match.replay_of
    while earlier is not None:
        tries += 1
        earlier = session.exec(select(Match.replay_of).where(Match.id == earlier)).one()
    return tries


def void_interrupted_one_offs(db: Database) -> int:
    """After a crash: void the one-off matches the dead server left scheduled or running (they
    are not replayed: the caller that asked for them is gone). Returns how many."""
    with db.transaction() as session:
        stranded = session.exec(
            select(Match).where(
                col(Match.league_id).is_(None),
                col(Match.status).in_([MatchStatus.SCHEDULED, MatchStatus.RUNNING]),
            )
        ).all()
        for match in stranded:
            match.status = MatchStatus.VOID
            match.status_reason = (
                "the server stopped before the match finished (a one-off match is not replayed)"
            )
            match.finished_at = utc_now()
            match.rated = False
            session.add(match)
        return len(stranded)


def _already_recorded(session: Session, match: Match) -> FinishReport:
    assert match.id is not None
    replay = None
    if match.status == MatchStatus.VOID:
        replay = session.exec(select(Match.id).where(Match.replay_of == match.id)).first()
    ranks = tuple(seat.rank or 0 for seat in seat_rows(session, match.id))
    return FinishReport(
        match_id=match.id,
        status=match.status,
        already_recorded=True,
        ranks=ranks if match.rated else (),
        replay_match_id=replay,
        rated=match.rated,
    )


def _check_outcome(outcome: MatchOutcome, seats: list[MatchSeat]) -> list[SeatOutcome]:
    """The outcome's seats in seat order, checked against the planned seats."""
    by_seat = {seat.seat: seat for seat in outcome.seats}
    if len(by_seat) != len(outcome.seats) or sorted(by_seat) != [s.seat for s in seats]:
        raise InvalidRequestError(
            f"match {outcome.match_id} has seats {[s.seat for s in seats]}, "
            f"the outcome gives {[s.seat for s in outcome.seats]}"
        )
    for planned in seats:
        given = by_seat[planned.seat]
        if given.bot_id != planned.bot_id:
            raise InvalidRequestError(
                f"seat {planned.seat} of match {outcome.match_id} is bot {planned.bot_id}, not {given.bot_id}"
            )
        if given.rank < 1 or given.rank > len(seats):
            raise InvalidRequestError(f"seat {planned.seat} has rank {given.rank}, not 1 to {len(seats)}")
    if outcome.digests and len(outcome.digests) != len(seats):
        raise InvalidRequestError("the outcome must give one digest list per seat (or none)")
    return [by_seat[planned.seat] for planned in seats]


def _lock_bots(session: Session, bot_ids: Sequence[int]) -> None:
    """Lock these bots' rows, by id: their fault counts are read and maybe acted on."""
    if bot_ids:
        session.exec(
            select(Bot)
            .where(col(Bot.id).in_(sorted(set(bot_ids))))
            .order_by(col(Bot.id))
            .with_for_update()
            .execution_options(populate_existing=True)
        ).all()


def close_league_if_done(session: Session, league_id: int | None, league: League | None = None) -> None:
    """A round robin or gauntlet ends when nothing of it waits or runs (a ladder asks its
    matchmaker). ``league``: its row, if the caller holds it already."""
    if league_id is None:
        return
    if league is None or league.id != league_id:
        league = session.get(League, league_id)
    if league is None or league.finished or league.format == "ladder":
        return
    waiting = session.exec(
        select(Match.id).where(
            Match.league_id == league_id,
            col(Match.status).in_([MatchStatus.SCHEDULED, MatchStatus.RUNNING]),
        )
    ).first()
    if waiting is None:
        _close(session, league)


def _close(session: Session, league: League | None) -> None:
    if league is not None and not league.finished and league.format != "ladder":
        league.finished = True
        session.add(league)


_STATUSES = select(col(LeagueStatusCount.status), col(LeagueStatusCount.matches)).where(
    col(LeagueStatusCount.league_id) == bindparam("league")
)
"""Kept by the database's triggers (``status_counts``): a few rows, whatever the league's age."""


def statuses_in(session: Session, league_id: int) -> dict[str, int]:
    """The league's matches by status (every status, 0 for none), in the caller's transaction."""
    rows = read_rows(session, _STATUSES, {"league": league_id})
    return dict.fromkeys(MatchStatus.ALL, 0) | dict(rows.all())


def match_row(session: Session, match_id: int) -> Match:
    match = session.exec(select(Match).where(Match.id == match_id)).first()
    if match is None:
        raise NotFoundError(f"no match {match_id}")
    return match


# Built once: building a statement costs several times what executing it does (docs/scaling.md).
_NAMED_SEATS = (
    select(MatchSeat, Bot.name)
    .join(Bot, col(Bot.id) == col(MatchSeat.bot_id))
    .where(col(MatchSeat.match_id) == bindparam("match"))
    .order_by(col(MatchSeat.seat))
)


def _named_seats(session: Session, match_id: int) -> list[tuple[MatchSeat, str]]:
    """The match's seats in order, each with its bot's name (one query)."""
    rows = session.exec(_NAMED_SEATS, params={"match": match_id}).all()
    return [(seat, name) for seat, name in rows]


def seat_rows(session: Session, match_id: int) -> list[MatchSeat]:
    return list(
        session.exec(
            select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(col(MatchSeat.seat))
        ).all()
    )


def schedule_match(
    session: Session,
    *,
    game: str,
    seed: int,
    options: Mapping[str, OptionValue],
    bot_ids: Sequence[int],
    league_id: int | None = None,
    ordinal: int = 0,
    duplicate_group: int | None = None,
    replay_of: int | None = None,
) -> Match:
    """Write a scheduled match and its seats (inside the caller's transaction)."""
    if len(set(bot_ids)) != len(bot_ids):
        raise InvalidRequestError("a bot may take only one seat in a match")
    match = Match(
        league_id=league_id,
        ordinal=ordinal,
        game=game,
        players=len(bot_ids),
        seed=seed,
        options=dict(options),
        duplicate_group=duplicate_group,
        replay_of=replay_of,
    )
    session.add(match)
    session.flush()
    assert match.id is not None
    for seat, bot_id in enumerate(bot_ids):
        session.add(MatchSeat(match_id=match.id, seat=seat, bot_id=bot_id))
    session.flush()
    return match
