"""A competition's page: its phase and the time left, its entries (each frozen version), the
finals' stages (the bracket's pairs, or the ladder's rounds) with the matches in play (each links
to its live board) and every finished match's replay, the standings and every decision."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timedelta
from typing import Any

from markupsafe import Markup
from sqlmodel import Session, col, select

from kingmaker.ladder.competitions.competition_clock import offset_s
from kingmaker.ladder.competitions.competition_rows import format_time
from kingmaker.ladder.competitions.competitions import get_competition
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Competition, League, Match, MatchStatus
from kingmaker.server.web.bracket_svg import bracket_svg
from kingmaker.server.web.double_elimination_svg import double_elimination_svg
from kingmaker.server.web.match_rows import match_rows

SHOWN_MATCHES = 200
"""Finished matches listed per stage league (each with its replay); the league's page has all."""


def competition_page(db: Database, name: str, now: datetime) -> dict[str, Any]:
    info = get_competition(db, name)
    stages = []
    live: dict[str, int] = {}
    with db.read() as session:
        for stage in info.stages:
            playing = [_on_competition_clock(row) for row in _in_play(session, stage.league)]
            finished = [
                _on_competition_clock(row)
                for row in match_rows(session, list(stage.match_ids[-SHOWN_MATCHES:]))
            ]
            stages.append(asdict(stage) | {"in_play": playing, "matches": finished})
            if playing:
                live[stage.league] = playing[0]["match_id"]
    left = (info.closes_at - now).total_seconds()
    return {
        "competition": info.name,
        "game": info.game,
        "players": info.players,
        "phase": info.phase,
        "stage": info.stage,
        "finals": info.finals,
        "opens_at": format_time(info.opens_at),
        "closes_at": format_time(info.closes_at),
        "finals_at": format_time(info.finals_at or info.closes_at),
        "now": format_time(now),
        "seconds_left": max(0, int(left)) if info.phase == "open" else 0,
        "open_league": info.open_league,
        "winner": info.winner,
        "entries": [asdict(entry) for entry in info.entries],
        "standings": [asdict(row) for row in info.standings],
        "decisions": [asdict(d) | {"decided_at": format_time(d.decided_at)} for d in info.decisions],
        "stages": stages,
        "tiers": list(info.tiers),
        "promote_after": info.promote_after,
        "relegate_after": info.relegate_after,
        "swiss_rounds": [asdict(r) for r in info.swiss_rounds],
        "bracket": [asdict(m) for m in info.bracket],
        "bracket_svg": Markup(
            double_elimination_svg(info.bracket, live)
            if info.finals["format"] == "double_elimination"
            else bracket_svg(info.bracket, live)
        ),
    }


def competition_names(db: Database) -> list[dict[str, Any]]:
    with db.read() as session:
        rows = session.exec(select(Competition).order_by(col(Competition.id).desc()).limit(50)).all()
        return [{"competition": row.name, "game": row.game, "phase": row.phase} for row in rows]


def _in_play(session: Session, league_name: str) -> list[dict[str, Any]]:
    league = session.exec(select(League).where(League.name == league_name)).first()
    if league is None:
        return []
    running = session.exec(
        select(Match.id)
        .where(Match.league_id == league.id, Match.status == MatchStatus.RUNNING)
        .order_by(col(Match.id))
    ).all()
    return match_rows(session, [match_id or 0 for match_id in running])


def _on_competition_clock(row: dict[str, Any]) -> dict[str, Any]:
    """A match's times on the competition's clock, as its decisions are (a test clock set ahead
    moves both), so a finals match never seems to end before the deadline."""
    shift = timedelta(seconds=offset_s())
    for key in ("started_at", "finished_at"):
        if row.get(key):
            row[key] = format_time(datetime.fromisoformat(row[key]) + shift)
    return row
