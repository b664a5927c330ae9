"""A league's life after its creation: a run starting, a pause, a stop, the end of a run, the
resumption after a crash, and a re-run of its plan under a new name.

Each change locks the league's row first (``leagues.league_row(..., lock=True)``), as every
transaction that changes a league's plan or state does."""

from __future__ import annotations

from sqlmodel import col, select

from kingmaker.ladder.errors import ConflictError, InvalidRequestError
from kingmaker.ladder.leagues.leagues import league_by_name, league_info, league_row
from kingmaker.ladder.matches.matches import schedule_match, ticket
from kingmaker.ladder.names import check_name
from kingmaker.ladder.pairing.league_pool import new_entrant, note_planned
from kingmaker.ladder.pairing.schedules import PlannedMatch
from kingmaker.ladder.records import LeagueInfo
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import League, LeagueBot, Match, MatchStatus


def prepare_run(db: Database, name: str, concurrency: int = 0) -> LeagueInfo:
    """A run of the league is starting (or joined): it is no longer paused, and it keeps the
    concurrency it is given (0 keeps the one it had)."""
    with db.transaction() as session:
        league = league_by_name(session, name, lock=True)
        league.paused = False
        if concurrency:
            league.concurrency = concurrency
        session.add(league)
        session.flush()
        return league_info(session, league)


def pause_league(db: Database, name: str) -> LeagueInfo:
    """Start no new match of the league (those in play finish) until it is run again."""
    with db.transaction() as session:
        league = league_by_name(session, name, lock=True)
        if league.finished:
            raise InvalidRequestError(f"league {name!r} is finished")
        league.paused = True
        league.status_reason = "paused by an admin; `league resume` carries on"
        session.add(league)
        session.flush()
        return league_info(session, league)


def stop_league(db: Database, name: str) -> LeagueInfo:
    """End the league for good: its waiting matches are cancelled (those in play finish and are
    rated), and it is finished. This is how a continuous ladder league ends."""
    with db.transaction() as session:
        league = league_by_name(session, name, lock=True)
        if league.finished:
            raise InvalidRequestError(f"league {name!r} is finished already")
        waiting = session.exec(
            select(Match).where(Match.league_id == league.id, Match.status == MatchStatus.SCHEDULED)
        ).all()
        for match in waiting:
            match.status = MatchStatus.CANCELLED
            match.status_reason = "the league was stopped"
            session.add(match)
        league.finished = True
        league.paused = False
        league.status_reason = f"stopped by an admin ({len(waiting)} waiting matches cancelled)"
        session.add(league)
        session.flush()
        return league_info(session, league)


def end_league(db: Database, league_id: int, reason: str) -> None:
    """Record why the league stopped (its runner failed, or an admin stopped it); what has not
    started is left scheduled, so running the league again carries on from there."""
    with db.transaction() as session:
        league = league_row(session, league_id, lock=True)
        if not league.paused:  # a pause says why itself
            league.status_reason = reason
        session.add(league)


def resume_league(db: Database, league_id: int) -> int:
    """After a crash: put the league's interrupted (running) matches back to scheduled so they
    replay from scratch; finished ones are left alone. Returns how many were reset."""
    with db.transaction() as session:
        league_row(session, league_id, lock=True)
        running = session.exec(
            select(Match).where(Match.league_id == league_id, Match.status == MatchStatus.RUNNING)
        ).all()
        for match in running:
            match.status = MatchStatus.SCHEDULED
            match.started_at = None
            match.status_reason = "reset after an interrupted run"
            session.add(match)
        return len(running)


def rerun_league(db: Database, league_id: int, new_name: str) -> LeagueInfo:
    """A new league that replays the planned matches of ``league_id``: same seeds, same seats."""
    check_name("league", new_name)
    with db.transaction() as session:
        old = league_row(session, league_id)
        if session.exec(select(League.id).where(League.name == new_name)).first() is not None:
            raise ConflictError(f"a league named {new_name!r} already exists")
        originals = session.exec(
            select(Match)
            .where(Match.league_id == league_id, col(Match.replay_of).is_(None))
            .order_by(col(Match.ordinal))
        ).all()
        settings = dict(old.settings)
        if old.format == "ladder":
            # Matchmaking depends on results; the re-run plays exactly the recorded plan.
            settings["max_matches"] = len(originals)
        league = League(
            name=new_name,
            game=old.game,
            format=old.format,
            players=old.players,
            seed=old.seed,
            duplicate=old.duplicate,
            options=dict(old.options),
            settings=settings,
            groups_planned=old.groups_planned,
            matches_planned=len(originals),
        )
        session.add(league)
        session.flush()
        assert league.id is not None
        for entry in session.exec(select(LeagueBot).where(LeagueBot.league_id == league_id)).all():
            session.add(new_entrant(session, league, entry.bot_id, entry.position))
        plan = []
        for match in originals:
            bot_ids = ticket(session, match).bot_ids
            schedule_match(
                session,
                game=match.game,
                seed=match.seed,
                options=match.options,
                bot_ids=bot_ids,
                league_id=league.id,
                ordinal=match.ordinal,
                duplicate_group=match.duplicate_group,
            )
            group = match.ordinal if match.duplicate_group is None else match.duplicate_group
            plan.append(PlannedMatch(match.ordinal, bot_ids, match.seed, group, match.duplicate_group))
        note_planned(session, league.id, plan)
        return league_info(session, league)
