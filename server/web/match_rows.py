"""Rows of the match tables (a bot's matches, a league's, those in play), a page at a time in three
indexed reads whatever the page's size: the matches, their seats with the bots' names, their
leagues' names. Never a match's log: a list shows who played and how it ended, nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select as select_columns  # sqlmodel's select types at most four columns
from sqlmodel import Session, col, select

from kingmaker.ladder.storage.models import Bot, League, Match, MatchSeat, MatchStatus
from kingmaker.server.services.host_paths import neutral


def match_rows(session: Session, match_ids: Sequence[int], viewer: str | None = None) -> list[dict[str, Any]]:
    """The matches ``match_ids`` in that order, as the pages and the JSON API show them; with
    ``viewer`` (a bot name), each row also has that bot's score and rank. Reads columns, not ORM
    objects: a page costs what its rows cost."""
    if not match_ids:
        return []
    matches = {
        row.id: row
        for row in session.execute(
            select_columns(
                col(Match.id),
                col(Match.league_id),
                col(Match.game),
                col(Match.status),
                col(Match.status_reason),
                col(Match.rated),
                col(Match.started_at),
                col(Match.finished_at),
            ).where(col(Match.id).in_(match_ids))
        ).all()
    }
    seats: dict[int, list[Any]] = {match_id: [] for match_id in matches}
    for seat in session.execute(
        select_columns(
            col(MatchSeat.match_id),
            col(MatchSeat.seat),
            col(Bot.name),
            col(MatchSeat.score),
            col(MatchSeat.rank),
            col(MatchSeat.end_reason),
            col(MatchSeat.detail),
            col(MatchSeat.strikes),
        )
        .join(Bot, col(Bot.id) == col(MatchSeat.bot_id))
        .where(col(MatchSeat.match_id).in_(match_ids))
        .order_by(col(MatchSeat.match_id), col(MatchSeat.seat))
    ).all():
        seats[seat.match_id].append(seat)
    league_ids = {match.league_id for match in matches.values() if match.league_id is not None}
    leagues = dict(
        session.exec(select(League.id, League.name).where(col(League.id).in_(league_ids))).all()
        if league_ids
        else []
    )
    rows = []
    for match_id in match_ids:
        match = matches.get(match_id)
        if match is None:
            continue
        finished = match.status == MatchStatus.FINISHED
        # Results only once the match is over: a running match shows who plays, nothing more.
        shown = [
            {
                "seat": seat.seat,
                "bot": seat.name,
                "score": seat.score if finished else None,
                "rank": seat.rank if finished else None,
                "end_reason": seat.end_reason if finished else None,
                "detail": seat.detail and neutral(seat.detail) if finished else None,
                "strikes": seat.strikes if finished else None,
            }
            for seat in seats[match_id]
        ]
        row = {
            "match_id": match.id,
            "league": leagues.get(match.league_id) if match.league_id is not None else None,
            "game": match.game,
            "status": match.status,
            "status_reason": match.status_reason and neutral(match.status_reason),
            "rated": match.rated,
            "started_at": _time(match.started_at),
            "finished_at": _time(match.finished_at),
            "seats": shown,
        }
        if viewer is not None:
            mine = next((seat for seat in shown if seat["bot"] == viewer), None)
            row["rank"] = mine["rank"] if mine else None
            row["score"] = mine["score"] if mine else None
        rows.append(row)
    return rows


def _time(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") if value is not None else None
