"""Swiss finals (``--finals swiss``; for 3 to 5 seats, and 2): a stated number of rounds; each
round seats the entries at tables of ``players`` grouped by score (the leaders together, in
order), each table a league of ``best_of`` seeds played from every seat. Nobody is cut.

Points: at a table of n seats, a match's place p earns n - p (the last earns 0); the entries
left over when the field does not divide into full tables sit the round out (a **bye**, no
points), the lowest placed who have not sat out before first. After the last round the most
points wins; ties: more matches won, then the better seed (docs/competitions.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from kingmaker.ladder.bots.bots import names_in
from kingmaker.ladder.competitions.competition_results import finalists, finished_matches, publish_winner
from kingmaker.ladder.competitions.competition_rows import record
from kingmaker.ladder.storage.models import Competition, CompetitionDecision, CompetitionStage

Table = list[int | None]


def seat_tables(ranked: Sequence[int], seats: int, sat_out: set[int]) -> tuple[list[list[int]], list[int]]:
    """Tables of ``seats`` from ``ranked`` (best first) and the entries that sit this round out."""
    extra = len(ranked) % seats
    byes: list[int] = []
    for fresh_only in (True, False):
        for bot in reversed(ranked):
            if len(byes) < extra and bot not in byes and (bot not in sat_out or not fresh_only):
                byes.append(bot)
    playing = [bot for bot in ranked if bot not in byes]
    return [playing[index : index + seats] for index in range(0, len(playing), seats)], byes


def swiss_ranking(
    session: Session, competition: Competition, before_stage: int | None = None
) -> list[tuple[int, int, int]]:
    """(bot, points, matches won) of every finalist, best first, from the rounds before
    ``before_stage`` (None: every match played so far)."""
    query = select(CompetitionStage.league_id).where(CompetitionStage.competition_id == competition.id)
    if before_stage is not None:
        query = query.where(col(CompetitionStage.stage) < before_stage)
    points: dict[int, int] = defaultdict(int)
    wins: dict[int, int] = defaultdict(int)
    for _, seats in finished_matches(session, list(session.exec(query).all())):
        for bot, rank, _ in seats:
            points[bot] += len(seats) - rank
            wins[bot] += rank == 1
    entries = finalists(session, competition)
    seeds = {entry.bot_id: (entry.seed or 0, entry.position) for entry in entries}
    rows = [(entry.bot_id, points[entry.bot_id], wins[entry.bot_id]) for entry in entries]
    rows.sort(key=lambda row: (-row[1], -row[2], seeds[row[0]]))
    return rows


def swiss_plan(session: Session, competition: Competition) -> list[Table]:
    """The current round's tables, then (if any) the group that sits out, padded with None so
    that it needs no league."""
    ranked = [bot for bot, _, _ in swiss_ranking(session, competition, competition.stage)]
    sat_out = {
        row.bot_id
        for row in session.exec(
            select(CompetitionDecision).where(
                CompetitionDecision.competition_id == competition.id, CompetitionDecision.kind == "bye"
            )
        ).all()
        if row.bot_id is not None and row.stage < competition.stage
    }
    tables, byes = seat_tables(ranked, competition.players, sat_out)
    plan: list[Table] = [list(table) for table in tables]
    if byes:
        plan.append([*byes, None])
    return plan


def decide_swiss_round(session: Session, competition: Competition, now: datetime) -> None:
    stage = competition.stage
    plan = swiss_plan(session, competition)
    names = names_in(session, [bot for table in plan for bot in table if bot is not None])
    for table in plan:
        if None in table:
            for bot in table:
                if bot is not None:
                    reason = f"{names[bot]} sits out round {stage} (a bye, no points)"
                    record(session, competition, f"bye:{stage}:{bot}", "bye", bot, reason, now, stage)
    ranking = swiss_ranking(session, competition)
    leader, points, wins = ranking[0]
    summary = ", ".join(f"{names.get(bot) or bot} {score}" for bot, score, _ in ranking[:5])
    record(
        session, competition, f"round:{stage}", "round", leader, f"after round {stage}: {summary}", now, stage
    )
    if stage >= competition.finals["rounds"]:
        why = f"most points after {stage} Swiss rounds: {points} ({wins} matches won)"
        publish_winner(session, competition, leader, now, why)
    else:
        competition.stage += 1
