"""Who plays in a continuous ladder league now: bots join and leave it while it runs, and a remote
bot that is not connected is *away* (not scheduled, never faulted) until it comes back.

A bot that joins, comes back or rejoins starts level with the field: its count of planned matches
is raised to the fewest among the bots present, so it is seeded soon, but does not play every match
until it has caught up. (A bot enabled or reinstated is levelled the same way, in every ladder it
is in at once: ``league_pool.level_with_the_field``.) One that leaves or goes away has its waiting
matches cancelled (those in play finish and count); it stays listed in the league for its matches.
Every change locks the league row first, as the league store does.
"""

from __future__ import annotations

from collections.abc import Collection

from sqlmodel import Session, col, select

from kingmaker.ladder.bots.entrants import active_bots_for
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, NotFoundError
from kingmaker.ladder.leagues.leagues import league_by_name, league_info
from kingmaker.ladder.matches.locks import lock_league, locked_match
from kingmaker.ladder.pairing.league_pool import DatabasePool, new_entrant
from kingmaker.ladder.records import FinishReport, LeagueInfo
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Bot, League, LeagueBot, Match, MatchSeat, MatchStatus, utc_now


def join_league(db: Database, name: str, bot_name: str) -> LeagueInfo:
    """Enter a bot in a ladder league that is not finished (again, if it had left)."""
    with db.transaction() as session:
        league = _open_ladder(session, name)
        assert league.id is not None
        (bot,) = active_bots_for(session, league.game, [bot_name])
        assert bot.id is not None
        entry = session.get(LeagueBot, (league.id, bot.id))
        if entry is not None and entry.left_at is None:
            raise ConflictError(f"bot {bot_name} is in league {name!r} already")
        level = _fewest_planned(session, league.id)
        if entry is None:
            positions = session.exec(select(LeagueBot.position).where(LeagueBot.league_id == league.id)).all()
            entry = new_entrant(session, league, bot.id, max(positions, default=-1) + 1, planned=level)
        else:
            entry.left_at, entry.away = None, False
            entry.planned = max(entry.planned, level)
        session.add(entry)
        session.flush()
        return league_info(session, league)


def leave_league(db: Database, name: str, bot_name: str) -> LeagueInfo:
    """Take a bot out of a ladder league: it is scheduled no more; its waiting matches are
    cancelled, those in play finish and count."""
    with db.transaction() as session:
        league = _open_ladder(session, name)
        assert league.id is not None
        bot = session.exec(select(Bot).where(Bot.name == bot_name)).first()
        entry = session.get(LeagueBot, (league.id, bot.id)) if bot is not None else None
        if bot is None or entry is None or entry.left_at is not None:
            raise NotFoundError(f"bot {bot_name} is not in league {name!r}")
        entry.left_at, entry.away = utc_now(), True
        session.add(entry)
        _cancel_waiting(session, league.id, {entry.bot_id: f"bot {bot_name} left the league"})
        session.flush()
        return league_info(session, league)


def mark_presence(db: Database, league_id: int, away: Collection[int], back: Collection[int]) -> None:
    """These entrants went away (their waiting matches are cancelled) or came back (level with the
    field). Bots that left, or are already so, are left alone."""
    if not away and not back:
        return
    with db.transaction() as session:
        if lock_league(session, league_id) is None:
            raise NotFoundError(f"no league {league_id}")
        entries = session.exec(
            select(LeagueBot).where(
                LeagueBot.league_id == league_id,
                col(LeagueBot.bot_id).in_([*away, *back]),
                col(LeagueBot.left_at).is_(None),
            )
        ).all()
        gone = {entry.bot_id: entry for entry in entries if entry.bot_id in away and not entry.away}
        returned = [entry for entry in entries if entry.bot_id in back and entry.away]
        for entry in gone.values():
            entry.away = True
            session.add(entry)
        session.flush()
        level = _fewest_planned(session, league_id)
        for entry in returned:
            entry.away = False
            entry.planned = max(entry.planned, level)
            session.add(entry)
        if gone:
            names = dict(session.exec(select(Bot.id, Bot.name).where(col(Bot.id).in_(gone))).all())
            reasons = {bot: away_reason([names[bot]]) for bot in gone}
            _cancel_waiting(session, league_id, reasons)


def away_reason(bots: list[str]) -> str:
    """Why a match of bots that were away is cancelled (``status_reason``)."""
    return f"bot {', '.join(bots)} was away (not connected)"


def cancel_unbegun(db: Database, match_id: int, away: list[str]) -> FinishReport:
    """Cancel a claimed match that never began because these bots went away before their seats
    were taken (``Roster.give_up_waiting``): nobody was told of it, so nothing is rated or
    faulted, as for the ladder's waiting matches. A match recorded meanwhile stays as it is."""
    with db.transaction() as session:
        match = locked_match(session, match_id)
        if match.status == MatchStatus.RUNNING:
            match.status = MatchStatus.CANCELLED
            match.status_reason = away_reason(away)
            session.add(match)
        return FinishReport(match_id=match_id, status=match.status, rated=False)


def _open_ladder(session: Session, name: str) -> League:
    league = league_by_name(session, name, lock=True)
    if league.format != "ladder":
        raise InvalidRequestError(
            f"league {name!r} is a {league.format.replace('_', ' ')}: bots join or leave only a ladder "
            "league (the others' plans are fixed when they are created)"
        )
    if league.finished:
        raise InvalidRequestError(f"league {name!r} is finished")
    return league


def _fewest_planned(session: Session, league_id: int) -> int:
    """The fewest matches planned for any bot present (0 if none is)."""
    least = DatabasePool(session, league_id).fewest_planned(1)
    return least[0].planned if least else 0


def _cancel_waiting(session: Session, league_id: int, reasons: dict[int, str]) -> None:
    """Cancel the league's waiting matches that seat any of these bots (a few: a ladder plans a
    few ahead), saying why."""
    waiting = select(Match.id).where(Match.league_id == league_id, Match.status == MatchStatus.SCHEDULED)
    seated = session.exec(
        select(MatchSeat.match_id, MatchSeat.bot_id).where(
            col(MatchSeat.match_id).in_(waiting.scalar_subquery()), col(MatchSeat.bot_id).in_(reasons)
        )
    ).all()
    why = {match_id: reasons[bot_id] for match_id, bot_id in seated}
    locked = (
        select(Match).where(col(Match.id).in_(why), Match.status == MatchStatus.SCHEDULED).with_for_update()
    )
    for match in session.exec(locked).all():
        match.status = MatchStatus.CANCELLED
        match.status_reason = why[match.id or 0]
        session.add(match)


def remote_entrants(db: Database, league_id: int) -> set[int]:
    """The league's entrants (not left) that are remote bots: those that can be away."""
    with db.read() as session:
        rows = session.exec(
            select(Bot.id, Bot.command)
            .join(LeagueBot, col(LeagueBot.bot_id) == col(Bot.id))
            .where(LeagueBot.league_id == league_id, col(LeagueBot.left_at).is_(None))
        ).all()
    return {bot_id for bot_id, command in rows if bot_id is not None and command is None}
