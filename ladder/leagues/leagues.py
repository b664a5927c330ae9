"""Leagues: create one, hand its matches to the scheduler, resume it after a crash, re-run it.

Formats (``FORMATS``):

- ``round_robin``: every group of ``players`` bots meets ``rounds`` times;
- ``gauntlet``: ``challenger`` against every group of ``players - 1`` bots of the field;
- ``ladder``: continuous matchmaking (``schedules.matchmaking``) until ``max_matches`` or
  ``time_budget_s`` (counted from the league's first match), or forever if neither is set; bots
  join and leave it while it runs (``membership``).

``duplicate=True`` plays each seed once per rotation of the seats, in every format. A round robin or
gauntlet is planned in full when created (every match row written, status *scheduled*); a ladder
is planned a few matches at a time as they are claimed, from the league's maintained rows
(``league_pool``), so a claim costs the same however many bots and matches the league has. Seeds
derive from the league seed, so a league created again with the same seed, bots and settings plans
the same matches, and ``rerun_league`` copies an existing league's planned matches (seeds and
seats) into a new one.

Every transaction that changes a league's plan or state locks its row first (``lock_league``), so
on a database where transactions run at once (PostgreSQL) two of them take turns, as they do in
SQLite: no match is claimed twice, no group planned twice, no closing missed.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, func
from sqlmodel import Session, col, select

from kingmaker.games.api import OptionValue
from kingmaker.ladder import bounds
from kingmaker.ladder.bots.entrants import active_bots_for
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, NotFoundError
from kingmaker.ladder.leagues.claim_window import free_first, mark_claimed, write_claimed
from kingmaker.ladder.leagues.plan_rows import write_planned
from kingmaker.ladder.matches.locks import lock_league
from kingmaker.ladder.matches.match_setup import check_game_setup
from kingmaker.ladder.matches.matches import close_league_if_done, ticket
from kingmaker.ladder.names import check_name
from kingmaker.ladder.pairing.league_pool import DatabasePool, new_entrant, note_planned
from kingmaker.ladder.pairing.schedules import Gauntlet, Matchmaker, PlannedMatch, Progress, RoundRobin
from kingmaker.ladder.pairing.schedules.base import SEED_BITS, FixedSchedule, check_entrants
from kingmaker.ladder.pairing.schedules.matchmaking import PLAN_AHEAD
from kingmaker.ladder.records import LeagueInfo, MatchTicket
from kingmaker.ladder.storage.db import Database, retrying
from kingmaker.ladder.storage.models import (
    Bot,
    League,
    LeagueBot,
    Match,
    MatchSeat,
    MatchStatus,
    utc_now,
)
from kingmaker.ladder.storage.tables import core_table, read_rows

FORMATS = ("round_robin", "gauntlet", "ladder")
LIVE = (MatchStatus.SCHEDULED, MatchStatus.RUNNING)


def create_league(
    db: Database,
    name: str,
    game: str,
    bots: Sequence[str],
    *,
    format: str = "round_robin",
    players: int = 2,
    seed: int | None = None,
    duplicate: bool = False,
    rounds: int = 1,
    options: Mapping[str, OptionValue] | None = None,
    challenger: str | None = None,
    max_matches: int | None = None,
    time_budget_s: float | None = None,
    live_delay_s: float | None = None,
    versions: Mapping[str, int] | None = None,
) -> LeagueInfo:
    """Create a league and (for round robin and gauntlet) write its whole plan. ``live_delay_s``:
    spectators see its running matches that many seconds late (the website's live boards).
    ``versions``: bot name -> the version that plays for it here, whatever becomes active later
    (a competition's finals play the versions frozen at its deadline: ``pinned_versions``)."""
    if format not in FORMATS:
        raise InvalidRequestError(f"unknown league format {format!r} (formats: {', '.join(FORMATS)})")
    if (challenger is None) != (format != "gauntlet"):
        raise InvalidRequestError("a gauntlet needs a challenger, and only a gauntlet takes one")
    check_name("league", name)
    try:
        bounds.ROUNDS.check(rounds)
        if max_matches is not None:
            bounds.LADDER_MATCHES.check(max_matches)
        if seed is not None:
            bounds.SEED.check(seed)
    except bounds.OutOfBounds as error:
        raise InvalidRequestError(str(error)) from None
    if time_budget_s is not None and not (
        math.isfinite(time_budget_s) and 0 < time_budget_s <= bounds.TIME_BUDGET_S.high
    ):
        raise InvalidRequestError(
            f"time_budget_s must be a number of seconds from 0 to {bounds.TIME_BUDGET_S.high:,}"
        )
    if live_delay_s is not None and not (
        math.isfinite(live_delay_s) and 0 <= live_delay_s <= bounds.LIVE_DELAY_S.high
    ):
        raise InvalidRequestError(
            f"live_delay_s must be a number of seconds from 0 to {bounds.LIVE_DELAY_S.high:,}"
        )
    resolved = check_game_setup(game, players, options)
    entrants = ([challenger] if challenger is not None else []) + list(bots)
    if challenger is not None and challenger in bots:
        raise InvalidRequestError(
            f"{challenger!r} is both the challenger and in the field: a gauntlet's challenger plays "
            "the field and is not part of it (leave it out of --bot)"
        )
    twice = next((bot for index, bot in enumerate(entrants) if bot in entrants[:index]), None)
    if twice is not None:
        raise InvalidRequestError(f"{twice!r} is entered twice: each bot is entered in a league once")
    league_seed = seed if seed is not None else secrets.randbits(SEED_BITS)
    settings: dict[str, Any] = {
        "rounds": rounds,
        "challenger": challenger,
        "max_matches": max_matches,
        "time_budget_s": time_budget_s,
    }
    if live_delay_s:
        settings["live_delay_s"] = live_delay_s
    with db.transaction() as session:
        if session.exec(select(League.id).where(League.name == name)).first() is not None:
            raise ConflictError(f"a league named {name!r} already exists")
        entered = active_bots_for(session, game, entrants)
        league = League(
            name=name,
            game=game,
            format=format,
            players=players,
            seed=league_seed,
            duplicate=duplicate,
            options=resolved,
            settings=settings,
        )
        session.add(league)
        if versions:
            league.settings = settings | {
                "versions": {str(bot.id): versions[bot.name] for bot in entered if bot.name in versions}
            }
        session.flush()
        assert league.id is not None
        for position, bot in enumerate(entered):
            assert bot.id is not None
            session.add(new_entrant(session, league, bot.id, position))
        try:
            schedule = _fixed_schedule(league, [bot.id or 0 for bot in entered])
        except ValueError as error:
            raise InvalidRequestError(str(error)) from None
        if schedule is not None:
            size = schedule.size()
            if size > bounds.PLANNED_MATCHES:
                raise InvalidRequestError(
                    f"that plan has {size:,} matches, more than the {bounds.PLANNED_MATCHES:,} a league may "
                    "plan up front; use fewer rounds or bots, or a continuous ladder league (--format ladder)"
                )
            _write_plan(session, league, schedule.plan())
        return league_info(session, league)


def get_league(db: Database, name: str) -> LeagueInfo:
    with db.read() as session:
        return league_info(session, league_by_name(session, name))


def list_leagues(db: Database, limit: int | None = None, after_id: int | None = None) -> list[LeagueInfo]:
    """Leagues, oldest first: at most ``limit``, after league ``after_id`` when given."""
    with db.read() as session:
        query = select(League).order_by(col(League.id)).limit(limit)
        if after_id is not None:
            query = query.where(col(League.id) > after_id)
        leagues = session.exec(query).all()
        return [league_info(session, league) for league in leagues]


def next_matches(db: Database, league_id: int, limit: int = 1) -> list[MatchTicket]:
    """Up to ``limit`` scheduled matches of the league, in plan order (a ladder plans more as
    needed). Empty when nothing waits: the league is then finished if nothing runs either."""
    return retrying(_next_matches, db, league_id, limit)


def _next_matches(db: Database, league_id: int, limit: int) -> list[MatchTicket]:
    with db.transaction() as session:
        league = league_row(session, league_id, lock=True)
        waiting = _next_waiting(session, league, limit)
        if not waiting:
            _close_if_done(session, league)
        return [ticket(session, match) for match in waiting]


def claim_matches(
    db: Database,
    league_id: int,
    limit: int,
    busy: Collection[int] = frozenset(),
    absent: frozenset[int] = frozenset(),
) -> list[MatchTicket]:
    """Up to ``limit`` of the league's next matches, marked *running* in the same transaction
    that picks them, so nothing (a suspension, a disable) can slip in between. A waiting match
    with a bot that may no longer play is cancelled on the spot instead of being handed out.
    Matches whose bots are all free (none in ``busy``, the bots of matches in play, a ``Counter``
    of how many matches each plays where known) go first; a match with a bot in ``absent`` (a
    remote bot not connected just now) is left waiting."""
    return retrying(_claim_matches, db, league_id, limit, busy, absent)


def _claim_matches(
    db: Database, league_id: int, limit: int, busy: Collection[int], absent: frozenset[int]
) -> list[MatchTicket]:
    with db.transaction() as session:
        return claim_in(session, league_row(session, league_id, lock=True), limit, busy, absent)


def claim_in(
    session: Session, league: League, limit: int, busy: Collection[int], absent: frozenset[int]
) -> list[MatchTicket]:
    """``claim_matches`` in the caller's transaction, ``league`` locked by it already."""
    if league.paused or league.finished:
        return []
    claimed: list[Match] = []
    seats: dict[int, tuple[int, ...]] = {}
    # A claim that took none of the matches it chose (each cancelled here for a disabled or
    # suspended bot, or by a withdrawal committed since the window was read) looks again: the
    # scheduler takes an empty claim with nothing in play as a planned league having nothing left
    # (a ladder, which plans as it goes, waits for its bots and claims again instead).
    while not claimed:
        _plan_ahead(session, league, limit)
        waiting, seated = free_first(session, league, limit, busy, absent)
        if not seated:  # no match waits in the window
            break
        seats.update(seated)
        for match in waiting:
            blocked = _inactive_seat(session, match)
            if blocked is not None:
                mark_claimed(match, MatchStatus.CANCELLED, blocked, match.started_at)
            else:
                mark_claimed(match, MatchStatus.RUNNING, match.status_reason, utc_now())
                if league.started_at is None:  # set only then: setting it at all has the flush look at it
                    league.started_at = match.started_at
                claimed.append(match)
        session.flush()  # the league's start, if this is its first claim
        write_claimed(session, waiting)
        if league.format == "ladder":
            break
    if not claimed:
        _close_if_done(session, league)
    return [ticket(session, match, seats.get(match.id or 0)) for match in claimed]


_bots, _seats = core_table(Bot), core_table(MatchSeat)
_INACTIVE_SEAT = (
    select(_bots.c.name, _bots.c.enabled)
    .join(_seats, _seats.c.bot_id == _bots.c.id)
    .where(
        _seats.c.match_id == bindparam("match"),
        (_bots.c.enabled.is_(False)) | (_bots.c.suspended_reason.is_not(None)),
    )
)
"""Built once, its two columns read on the session's connection: it is read per claimed match."""


def _plan_ahead(session: Session, league: League, wanted: int) -> None:
    """A running ladder plans matches as they are wanted; other formats planned all at creation."""
    if league.format == "ladder" and not league.finished:
        _top_up(session, league, wanted)


def _next_waiting(session: Session, league: League, limit: int) -> Sequence[Match]:
    """Up to ``limit`` scheduled matches in plan order (a ladder plans ``limit`` more first, as
    needed)."""
    _plan_ahead(session, league, limit)
    # Locked: a bot's withdrawal (another transaction) must not cancel a match claimed here.
    return session.exec(
        select(Match)
        .where(Match.league_id == league.id, Match.status == MatchStatus.SCHEDULED)
        .order_by(col(Match.ordinal), col(Match.id))
        .limit(limit)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).all()


def _close_if_done(session: Session, league: League) -> None:
    if league.format == "ladder":
        _close_ladder_if_done(session, league)
    else:
        close_league_if_done(session, league.id)


def _inactive_seat(session: Session, match: Match) -> str | None:
    """Why this match cannot start (one of its bots is disabled or suspended), or None."""
    bot = read_rows(session, _INACTIVE_SEAT, {"match": match.id}).first()
    if bot is None:
        return None
    return f"bot {bot.name} was {'disabled' if not bot.enabled else 'suspended'}"


def _fixed_schedule(league: League, bot_ids: list[int]) -> FixedSchedule | None:
    """A round robin's or gauntlet's schedule; None for a ladder (checked to have enough bots)."""
    settings = league.settings
    if league.format == "ladder":
        check_entrants(bot_ids, league.players)
        return None
    if league.format == "round_robin":
        return RoundRobin(
            bot_ids, league.players, league.seed, duplicate=league.duplicate, rounds=settings["rounds"]
        )
    return Gauntlet(
        bot_ids[0],
        bot_ids[1:],
        league.players,
        league.seed,
        duplicate=league.duplicate,
        rounds=settings["rounds"],
    )


def _matchmaker(league: League) -> Matchmaker:
    return Matchmaker(
        league.players,
        league.seed,
        duplicate=league.duplicate,
        max_matches=league.settings.get("max_matches"),
        time_budget_s=league.settings.get("time_budget_s"),
    )


def _write_plan(session: Session, league: League, plan: Sequence[PlannedMatch]) -> None:
    assert league.id is not None
    write_planned(session, league.id, league.game, league.options, plan)
    note_planned(session, league.id, plan)
    if plan:
        league.groups_planned = max(league.groups_planned, plan[-1].group + 1)
        league.matches_planned = max(league.matches_planned, plan[-1].ordinal + 1)
    session.add(league)
    session.flush()


def _top_up(session: Session, league: League, wanted: int) -> None:
    """Once fewer than ``wanted`` matches wait, plan groups until ``PLAN_AHEAD`` more than that do
    (or the matchmaker has no more: done, or too few bots present)."""
    assert league.id is not None
    waiting = _waiting_count(session, league.id)
    if waiting >= wanted:
        return
    maker = _matchmaker(league)
    pool = DatabasePool(session, league.id)
    while waiting < wanted + PLAN_AHEAD:
        batch = maker.next_matches(_progress(league, pool))
        if not batch:
            return
        _write_plan(session, league, batch)
        waiting += len(batch)


def _progress(league: League, pool: DatabasePool | None = None) -> Progress:
    elapsed = 0.0
    if league.started_at is not None:
        elapsed = (utc_now() - league.started_at).total_seconds()
    return Progress(
        groups_planned=league.groups_planned,
        matches_planned=league.matches_planned,
        elapsed_s=elapsed,
        pool=pool,
    )


def _close_ladder_if_done(session: Session, league: League) -> None:
    """A ladder ends once its matchmaker is done (match count or time budget) and nothing of it
    waits or runs; one that only lacks bots present waits for them."""
    assert league.id is not None
    if league.finished or not _matchmaker(league).done(_progress(league)):
        return
    running = session.exec(
        select(Match.id).where(Match.league_id == league.id, col(Match.status).in_(LIVE))
    ).first()
    if running is None:
        league.finished = True
        session.add(league)


def _waiting_count(session: Session, league_id: int) -> int:
    return session.exec(
        select(func.count())
        .select_from(Match)
        .where(Match.league_id == league_id, Match.status == MatchStatus.SCHEDULED)
    ).one()


def league_row(session: Session, league_id: int, lock: bool = False) -> League:
    league = lock_league(session, league_id) if lock else session.get(League, league_id)
    if league is None:
        raise NotFoundError(f"no league {league_id}")
    return league


def league_by_name(session: Session, name: str, lock: bool = False) -> League:
    league = session.exec(select(League).where(League.name == name)).first()
    if league is None:
        raise NotFoundError(f"no league named {name!r}")
    return league_row(session, league.id or 0, lock=True) if lock else league


def league_info(session: Session, league: League) -> LeagueInfo:
    assert league.id is not None
    entrants = session.exec(
        select(LeagueBot).where(LeagueBot.league_id == league.id).order_by(col(LeagueBot.position))
    ).all()
    return LeagueInfo(
        id=league.id,
        name=league.name,
        game=league.game,
        format=league.format,
        players=league.players,
        seed=league.seed,
        duplicate=league.duplicate,
        options=dict(league.options),
        settings=dict(league.settings),
        bot_ids=tuple(entrant.bot_id for entrant in entrants),
        finished=league.finished,
        status_reason=league.status_reason,
        paused=league.paused,
        concurrency=league.concurrency,
        away_ids=tuple(entrant.bot_id for entrant in entrants if entrant.away and entrant.left_at is None),
        left_ids=tuple(entrant.bot_id for entrant in entrants if entrant.left_at is not None),
        started_at=league.started_at,
        matches_planned=league.matches_planned,
    )
