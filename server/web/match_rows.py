"""Rows of the match tables (a bot's matches, a league's, those in play), a page at a time in three
indexed reads whatever the page's size: the matches, their seats with the bots' names, their
leagues' names. Never a match's log: a list shows who played and how it ended, nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from kingmaker.ladder.models import Bot, League, Match, MatchSeat, MatchStatus


def match_rows(session: Session, match_ids: Sequence[int], viewer: str | None = None) -> list[dict[str, Any]]:
    """The matches ``match_ids`` in that order, as the pages and the JSON API show them; with
    ``viewer`` (a bot name), each row also has that bot's score and rank."""
    if not match_ids:
        return []
    found = session.exec(select(Match).where(col(Match.id).in_(match_ids))).all()
    matches = {match.id or 0: match for match in found}
    seats: dict[int, list[tuple[MatchSeat, str]]] = {match_id: [] for match_id in matches}
    for seat, name in session.exec(
        select(MatchSeat, Bot.name)
        .join(Bot, col(Bot.id) == col(MatchSeat.bot_id))
        .where(col(MatchSeat.match_id).in_(match_ids))
        .order_by(col(MatchSeat.match_id), col(MatchSeat.seat))
    ).all():
        seats[seat.match_id].append((seat, name))
    league_ids = {match.league_id for match in matches.values() if match.league_id is not None}
    leagues = dict(
        session.exec(select(League.id, League.name).where(col(League.id).in_(league_ids))).all()
        if league_ids
        else []
    )
    rows = []
    for match_id in match_ids:
        match = matches.get(match_id)
        if match is not None:
            league = leagues.get(match.league_id) if match.league_id is not None else None
            rows.append(match_row(match, league, seats[match_id], viewer))
    return rows


def match_row(
    match: Match, league: str | None, seats: list[tuple[MatchSeat, str]], viewer: str | None = None
) -> dict[str, Any]:
    """One match as the pages show it: a running match shows who plays, nothing more."""
    finished = match.status == MatchStatus.FINISHED
    shown = [
        {
            "seat": seat.seat,
            "bot": name,
            "score": seat.score if finished else None,
            "rank": seat.rank if finished else None,
            "end_reason": seat.end_reason if finished else None,
            "detail": seat.detail if finished else None,
            "strikes": seat.strikes if finished else None,
        }
        for seat, name in seats
    ]
    row = {
        "match_id": match.id,
        "league": league,
        "game": match.game,
        "status": match.status,
        "status_reason": match.status_reason,
        "rated": match.rated,
        "started_at": _time(match.started_at),
        "finished_at": _time(match.finished_at),
        "seats": shown,
    }
    if viewer is not None:
        mine = next((seat for seat in shown if seat["bot"] == viewer), None)
        row["rank"] = mine["rank"] if mine else None
        row["score"] = mine["score"] if mine else None
    return row


def _time(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value is not None else None
