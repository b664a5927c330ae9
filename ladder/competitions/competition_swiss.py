"""Swiss finals (``--finals swiss``; 2 to 5 seats): a stated number of rounds; each round seats
the entries at tables grouped by points (``swiss_pairing``: the fewest repeated pairs, score
groups together, tables of ``players`` or one fewer when the field does not divide), each table a
league of ``best_of`` seeds played from every seat. Nobody is cut.

Points (docs/competitions.md): a match gives each seat the share of its table mates it beat, a tie
counting half ((below + tied / 2) / (n - 1)): 1 for the first, 0 for the last, at any table size,
and for 2 seats chess's 1, ½, 0. A round's points are the mean over its table's matches, so every
round is worth at most 1. A bye (only an odd field at 2 seats) scores 1, as a win does in chess.
After the last round the most points wins; ties: the Buchholz score (the sum of the points of
every opponent met, once per round met), then more matches won, then the better seed.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, select

from kingmaker.games.registry import get_game
from kingmaker.ladder.bots.bots import names_in
from kingmaker.ladder.competitions.competition_records import SwissRound
from kingmaker.ladder.competitions.competition_results import finalists, finished_matches, publish_winner
from kingmaker.ladder.competitions.competition_rows import record
from kingmaker.ladder.competitions.swiss_pairing import pair_key, swiss_round
from kingmaker.ladder.storage.models import (
    Bot,
    Competition,
    CompetitionDecision,
    CompetitionStage,
    LeagueBot,
)

Table = list[int | None]
BYE_POINTS = 1.0
"""A bye scores as a win (FIDE C.04: a pairing-allocated bye gets the points of a win)."""


@dataclass
class SwissHistory:
    """What the rounds before a stage decided, per entry."""

    points: dict[int, float] = field(default_factory=lambda: defaultdict(float))
    wins: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    met: Counter[tuple[int, int]] = field(default_factory=Counter)
    byes: Counter[int] = field(default_factory=Counter)
    opponents: dict[int, list[int]] = field(default_factory=lambda: defaultdict(list))
    rounds: dict[int, dict[int, float]] = field(default_factory=lambda: defaultdict(dict))
    """stage -> bot -> the points it scored in that round."""
    tables: dict[int, list[list[int]]] = field(default_factory=lambda: defaultdict(list))
    """stage -> its tables, in slot order."""

    def buchholz(self, bot: int) -> float:
        return sum(self.points[other] for other in self.opponents[bot])


def match_points(ranks: list[int]) -> list[float]:
    """Each seat's share of its table mates beaten (ties half), from the seats' ranks."""
    if len(ranks) < 2:
        return [0.0 for _ in ranks]
    return [
        (sum(1 for other in ranks if other > rank) + (ranks.count(rank) - 1) / 2) / (len(ranks) - 1)
        for rank in ranks
    ]


def swiss_history(
    session: Session, competition: Competition, before_stage: int | None = None
) -> SwissHistory:
    """Points, wins, meetings, byes and each round's points from the rounds before
    ``before_stage`` (None: every round so far, the current one's finished matches too)."""
    history = SwissHistory()
    query = select(CompetitionStage).where(CompetitionStage.competition_id == competition.id)
    if before_stage is not None:
        query = query.where(col(CompetitionStage.stage) < before_stage)
    for row in session.exec(query.order_by(col(CompetitionStage.stage), col(CompetitionStage.slot))).all():
        bots = list(session.exec(select(LeagueBot.bot_id).where(LeagueBot.league_id == row.league_id)).all())
        history.tables[row.stage].append(bots)
        for a, b in itertools.combinations(bots, 2):
            history.met[pair_key(a, b)] += 1
        for bot in bots:
            history.opponents[bot].extend(other for other in bots if other != bot)
        matches = finished_matches(session, [row.league_id])
        scored: dict[int, float] = defaultdict(float)
        for _, seats in matches:
            for (bot, rank, _), share in zip(seats, match_points([r for _, r, _ in seats]), strict=True):
                scored[bot] += share
                history.wins[bot] += rank == 1 and share > 0
        for bot in bots:
            earned = scored[bot] / len(matches) if matches else 0.0
            history.rounds[row.stage][bot] = earned
            history.points[bot] += earned
    for decision in session.exec(
        select(CompetitionDecision).where(
            CompetitionDecision.competition_id == competition.id, CompetitionDecision.kind == "bye"
        )
    ).all():
        if decision.bot_id is None or (before_stage is not None and decision.stage >= before_stage):
            continue
        history.byes[decision.bot_id] += 1
        history.points[decision.bot_id] += BYE_POINTS
        history.rounds[decision.stage][decision.bot_id] = BYE_POINTS
    return history


def swiss_ranking(
    session: Session, competition: Competition, before_stage: int | None = None
) -> list[tuple[int, float, float, int]]:
    """(bot, points, Buchholz, matches won) of every finalist, best first, from the rounds before
    ``before_stage`` (None: every match played so far)."""
    history = swiss_history(session, competition, before_stage)
    entries = finalists(session, competition)
    seeds = {entry.bot_id: (entry.seed or 0, entry.position) for entry in entries}
    rows = [
        (bot, history.points[bot], history.buchholz(bot), history.wins[bot])
        for bot in (entry.bot_id for entry in entries)
    ]
    rows.sort(key=lambda row: (-row[1], -row[2], -row[3], seeds[row[0]]))
    return rows


def swiss_plan(session: Session, competition: Competition) -> list[Table]:
    """The current round's tables, then (if any) the entries that sit out, padded with None so
    that they need no league."""
    history = swiss_history(session, competition, competition.stage)
    entries = finalists(session, competition)
    ranked = sorted(
        (entry.bot_id for entry in entries),
        key=lambda bot: (-history.points[bot], next(e.seed or 0 for e in entries if e.bot_id == bot)),
    )
    fewest = max(2, get_game(competition.game).spec.min_players)
    seating = swiss_round(ranked, history.points, history.met, history.byes, competition.players, fewest)
    plan: list[Table] = [list(table) for table in seating.tables]
    if seating.byes:
        plan.append([*seating.byes, None])
    return plan


def swiss_rounds(session: Session, competition: Competition) -> tuple[SwissRound, ...]:
    """Every round so far (the current one too, once its tables are made): its tables with each
    entry's points in that round, and who sat out."""
    history = swiss_history(session, competition)
    names = {bot.id: bot.name for bot in session.exec(select(Bot)).all()}
    shown = []
    for stage in sorted(set(history.tables) | set(history.rounds)):
        scored = history.rounds.get(stage, {})
        tables = tuple(
            tuple((names[bot], round(scored.get(bot, 0.0), 3)) for bot in table)
            for table in history.tables.get(stage, [])
        )
        seated = {bot for table in history.tables.get(stage, []) for bot in table}
        byes = tuple(names[bot] for bot in scored if bot not in seated)
        shown.append(SwissRound(stage, tables, byes))
    return tuple(shown)


def record_byes(session: Session, competition: Competition, now: datetime) -> None:
    """Record who sits out the current round (once each: the key names the round)."""
    stage = competition.stage
    plan = swiss_plan(session, competition)
    names = names_in(session, [bot for table in plan for bot in table if bot is not None])
    for table in plan:
        if None in table:
            for bot in table:
                if bot is not None:
                    reason = f"{names[bot]} sits out round {stage}: a bye, scored {BYE_POINTS:g} as a win"
                    record(session, competition, f"bye:{stage}:{bot}", "bye", bot, reason, now, stage)
    session.flush()


def decide_swiss_round(session: Session, competition: Competition, now: datetime) -> None:
    stage = competition.stage
    record_byes(session, competition, now)
    ranking = swiss_ranking(session, competition)
    names = names_in(session, [bot for bot, *_ in ranking])
    leader, points, buchholz, wins = ranking[0]
    summary = ", ".join(f"{names.get(bot) or bot} {score:g}" for bot, score, _, _ in ranking[:5])
    record(
        session, competition, f"round:{stage}", "round", leader, f"after round {stage}: {summary}", now, stage
    )
    if stage >= competition.finals["rounds"]:
        why = (
            f"most points after {stage} Swiss rounds: {points:g} (Buchholz {buchholz:g}, {wins} matches won)"
        )
        publish_winner(session, competition, leader, now, why)
    else:
        competition.stage += 1
