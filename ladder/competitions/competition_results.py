"""What a competition's finals have decided so far, read back: the entries still in, the
finished matches of its stage leagues, the bots' names, and publishing its winner. The finals
formats (``competition_finals``, ``competition_swiss``, ``competition_double``) read them,
and a two-seat meeting's result (both elimination formats)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from kingmaker.ladder.bots.bots import names_in
from kingmaker.ladder.competitions.competition_rows import record
from kingmaker.ladder.storage.models import (
    Competition,
    CompetitionDecision,
    CompetitionEntry,
    CompetitionPhase,
    CompetitionStage,
    League,
    Match,
    MatchSeat,
    MatchStatus,
)

Pair = tuple[int | None, int | None]


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


def stage_league_names(session: Session, competition: Competition) -> dict[tuple[int, int], str]:
    """(stage, slot) -> the name of the league that plays that meeting, table or stage."""
    rows = session.exec(
        select(CompetitionStage.stage, CompetitionStage.slot, League.name)
        .join(League, col(League.id) == col(CompetitionStage.league_id))
        .where(CompetitionStage.competition_id == competition.id)
    ).all()
    return {(stage, slot): name for stage, slot, name in rows}


def advance_decisions(session: Session, competition: Competition) -> dict[tuple[int, int], int | None]:
    """(stage, slot) -> who went on from each bracket meeting decided (None: nobody did)."""
    rows = session.exec(
        select(CompetitionDecision).where(
            CompetitionDecision.competition_id == competition.id, CompetitionDecision.kind == "advance"
        )
    ).all()
    return {(row.stage, int(row.key.rsplit(":", 1)[1])): row.bot_id for row in rows}


def mark_out(session: Session, competition: Competition, bot_id: int, stage: int) -> None:
    """The entry is out of the finals after ``stage`` (cut, eliminated or dropped)."""
    entry = session.get(CompetitionEntry, (competition.id, bot_id))
    assert entry is not None
    entry.out_at_stage = stage
    session.add(entry)


def pair_result(
    session: Session, competition: Competition, stage: int, slot: int, pair: Pair, where: str
) -> tuple[int, int | None, str]:
    """(winner, loser, why) of one meeting of two (a bracket's, either elimination format):
    more matches won, then the higher total score, then the better seed; a meeting with one
    seat empty is a bye. ``where`` names the meeting in the reason ("stage 2")."""
    a, b = pair
    names = names_in(session, [bot for bot in (a, b) if bot is not None])
    if a is None or b is None:
        present = a if a is not None else b
        assert present is not None
        return present, None, f"{names[present]} has a bye in {where}"
    row = session.get(CompetitionStage, (competition.id, stage, slot))
    assert row is not None
    wins, scores = meeting_record(session, row.league_id)
    seeds = {e.bot_id: e.seed or 0 for e in session.exec(select(CompetitionEntry).where(
        CompetitionEntry.competition_id == competition.id)).all()}  # fmt: skip
    first, second = sorted((a, b), key=lambda bot: (-wins[bot], -scores[bot], seeds[bot]))
    if wins[first] != wins[second]:
        rule = f"{wins[first]}-{wins[second]} in matches won"
    elif scores[first] != scores[second]:
        rule = f"level at {wins[first]} wins; {scores[first]}-{scores[second]} in total score"
    else:
        rule = f"level in wins and score; the better seed ({seeds[first]}) goes on"
    return first, second, f"{names[first]} beat {names[second]} in {where}: {rule}"


def meeting_record(session: Session, league_id: int) -> tuple[dict[int, int], dict[int, int]]:
    """Each bot's matches won and total score in one meeting's league."""
    wins: dict[int, int] = defaultdict(int)
    scores: dict[int, int] = defaultdict(int)
    for _, seats in finished_matches(session, [league_id]):
        for bot, rank, score in seats:
            wins[bot] += rank == 1
            scores[bot] += score
    return wins, scores
