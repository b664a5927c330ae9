"""What a competition's finals have decided so far, read back: the entries still in, the
finished matches of its stage leagues, the bots' names, and publishing its winner. Both finals
formats (``competition_finals``, ``competition_swiss``) read them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from kingmaker.ladder.bots.bots import names_in
from kingmaker.ladder.competitions.competition_rows import record
from kingmaker.ladder.storage.models import (
    Competition,
    CompetitionEntry,
    CompetitionPhase,
    Match,
    MatchSeat,
    MatchStatus,
)


def finalists(
    session: Session, competition: Competition, dropped_too: bool = False
) -> list[CompetitionEntry]:
    """The entries still in the finals (frozen, not cut nor eliminated), best seed first;
    ``dropped_too``: every frozen entry (a bracket's first stage is seeded from them all)."""
    query = select(CompetitionEntry).where(
        CompetitionEntry.competition_id == competition.id, col(CompetitionEntry.frozen_version).is_not(None)
    )
    if not dropped_too:
        query = query.where(col(CompetitionEntry.out_at_stage).is_(None))
    return list(
        session.exec(query.order_by(col(CompetitionEntry.seed), col(CompetitionEntry.position))).all()
    )


def publish_winner(session: Session, competition: Competition, bot_id: int, now: datetime, why: str) -> None:
    name = names_in(session, [bot_id])[bot_id]
    competition.winner_bot_id = bot_id
    competition.phase = CompetitionPhase.FINAL
    record(session, competition, "winner", "winner", bot_id, f"{name} wins: {why}", now, competition.stage)


def finished_matches(
    session: Session, league_ids: Sequence[int]
) -> list[tuple[int, list[tuple[int, int, int]]]]:
    """(match id, [(bot, ladder rank, score) per seat]) of the leagues' finished, rated matches,
    in the order they finished (ids break a tie), so a rating over them is reproducible."""
    if not league_ids:
        return []
    rows = session.exec(
        select(Match, MatchSeat)
        .join(MatchSeat, col(MatchSeat.match_id) == col(Match.id))
        .where(
            col(Match.league_id).in_(list(league_ids)), Match.status == MatchStatus.FINISHED, col(Match.rated)
        )
        .order_by(col(Match.finished_at), col(Match.id), col(MatchSeat.seat))
    ).all()
    matches: dict[int, list[tuple[int, int, int]]] = {}
    for match, seat in rows:
        assert match.id is not None
        matches.setdefault(match.id, []).append((seat.bot_id, seat.rank or 1, seat.score or 0))
    return list(matches.items())


def finished_record(session: Session, league_id: int | None) -> dict[int, tuple[int, int]]:
    """Each bot's (finished matches, wins) in a league: what its standings show, never the
    matches planned."""
    rows = session.exec(
        select(MatchSeat.bot_id, MatchSeat.rank)
        .join(Match, col(Match.id) == col(MatchSeat.match_id))
        .where(Match.league_id == league_id, Match.status == MatchStatus.FINISHED)
    ).all()
    found: dict[int, tuple[int, int]] = {}
    for bot, rank in rows:
        matches, wins = found.get(bot, (0, 0))
        found[bot] = (matches + 1, wins + (rank == 1))
    return found
