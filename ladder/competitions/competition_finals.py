"""A competition's finals, stage by stage: who plays in a stage, and what its results decide.

The formats (``competitions.FORMATS``):

- ``ladder`` (Halite's finals): ratings reset; each stage is a round robin of the entries still in,
  ``rounds`` times over, every seed played from every seat (duplicate seating); after stage k the
  entries below ``cuts[k-1]`` are cut; after the last stage (``len(cuts) + 1``) the first wins.
  The standing is a TrueSkill rating over the finals' matches only, from the start value.
- ``bracket`` (2 seats): seeded single elimination; each pair plays ``best_of`` seeds from both
  seats (a duplicate pair each); the byes go to the best seeds (``brackets``).
- ``swiss`` and ``double_elimination`` have their own modules (``competition_swiss``,
  ``competition_double``); this one sends each stage to them.

Tie-breaks (docs/competitions.md): in the ladder, the higher conservative rating (mu - 3 sigma),
then the higher mu, then more wins in the finals, then the better seed. In a bracket pair, more
matches won, then the higher total score, then the better seed.

Everything here is a function of what is stored (entries, decisions, the stage leagues' matches),
so a stage decided again after a crash decides the same, and its decisions are recorded once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from kingmaker.ladder.bots.bots import names_in
from kingmaker.ladder.competitions.brackets import first_stage, next_stage, stages
from kingmaker.ladder.competitions.competition_double import (
    DOUBLE_ELIMINATION,
    decide_double_stage,
    double_meetings,
    double_plan,
    first_losses,
)
from kingmaker.ladder.competitions.competition_records import BracketMeeting, StageLeague, StandingInfo
from kingmaker.ladder.competitions.competition_results import (
    advance_decisions,
    finalists,
    finished_matches,
    finished_record,
    mark_out,
    meeting_record,
    pair_result,
    publish_winner,
    stage_league_names,
)
from kingmaker.ladder.competitions.competition_rows import record
from kingmaker.ladder.competitions.competition_swiss import (
    decide_swiss_round,
    swiss_plan,
    swiss_ranking,
)
from kingmaker.ladder.competitions.competition_tiers import tier_standings
from kingmaker.ladder.ratings.ratings import conservative, rate, settings_for
from kingmaker.ladder.storage.models import (
    Bot,
    Competition,
    CompetitionDecision,
    CompetitionEntry,
    CompetitionPhase,
    CompetitionStage,
    League,
    LeagueBot,
)

Pair = tuple[int | None, int | None]


def stage_league_name(competition: Competition, stage: int, slot: int) -> str:
    return f"{competition.name}.f{stage}.{slot}"


def stage_plan(session: Session, competition: Competition) -> Sequence[Sequence[int | None]]:
    """Who plays the current stage: for a ladder one group (the finalists); for a bracket its
    pairs in bracket order, None for a bye; for Swiss its tables (``competition_swiss``)."""
    entries = finalists(session, competition)
    if competition.finals["format"] == "ladder":
        return [[entry.bot_id for entry in entries]]
    if competition.finals["format"] == "swiss":
        return swiss_plan(session, competition)
    if competition.finals["format"] == DOUBLE_ELIMINATION:
        return double_plan(session, competition)
    still = {entry.bot_id for entry in entries}  # one dropped gives a walkover, the pairs stay
    if competition.stage == 1:
        pairs = first_stage([entry.bot_id for entry in finalists(session, competition, dropped_too=True)])
    else:
        pairs = next_stage(_winners(session, competition, competition.stage - 1))
    return [(a if a in still else None, b if b in still else None) for a, b in pairs]


def groups_to_play(plan: Sequence[Sequence[int | None]]) -> dict[int, list[int]]:
    """Slot -> the bots of each group that needs a league (a bye needs none)."""
    return {
        slot: [bot for bot in group if bot is not None]
        for slot, group in enumerate(plan)
        if None not in group
    }


def decide_stage(session: Session, competition: Competition, now: datetime) -> None:
    """The current stage has ended (every league of it finished): record what it decides, cut or
    eliminate the losers, and go on to the next stage, or publish the winner."""
    stage = competition.stage
    if competition.finals["format"] == "ladder":
        _decide_ladder_stage(session, competition, now)
        return
    if competition.finals["format"] == "swiss":
        decide_swiss_round(session, competition, now)
        return
    if competition.finals["format"] == DOUBLE_ELIMINATION:
        decide_double_stage(session, competition, now)
        return
    plan = stage_plan(session, competition)
    winners: list[int | None] = []
    for slot, (a, b) in enumerate(plan):
        if a is None and b is None:  # both dropped: nobody goes on from here
            reason = f"nobody goes on from pair {slot + 1} of stage {stage}: both were dropped"
            record(session, competition, f"advance:{stage}:{slot}", "advance", None, reason, now, stage)
            winners.append(None)
            continue
        winner, loser, reason = pair_result(session, competition, stage, slot, (a, b), f"stage {stage}")
        record(session, competition, f"advance:{stage}:{slot}", "advance", winner, reason, now, stage)
        if loser is not None:
            mark_out(session, competition, loser, stage)
            record(session, competition, f"out:{stage}:{slot}", "eliminated", loser, reason, now, stage)
        winners.append(winner)
    if len(winners) == 1 and winners[0] is None:
        competition.phase = CompetitionPhase.FINAL
        record(
            session,
            competition,
            "winner",
            "winner",
            None,
            "no winner: both finalists were dropped",
            now,
            stage,
        )
    elif len(winners) == 1:
        assert winners[0] is not None
        publish_winner(session, competition, winners[0], now, f"won the final (stage {stage})")
    else:
        competition.stage += 1


def _decide_ladder_stage(session: Session, competition: Competition, now: datetime) -> None:
    stage, cuts = competition.stage, competition.finals["cuts"]
    ranked = finals_ranking(session, competition)
    names = names_in(session, [bot for bot, *_ in ranked])
    if stage > len(cuts):
        best = ranked[0]
        publish_winner(
            session, competition, best[0], now,
            f"first after the last stage ({stage}): conservative {best[3]:.2f} over {best[4]} finals matches",
        )  # fmt: skip
        return
    keep = cuts[stage - 1]
    for place, (bot, _, _, rating, played, _) in enumerate(ranked, start=1):
        if place > keep:
            mark_out(session, competition, bot, stage)
            reason = (
                f"{names[bot]} cut after stage {stage}: placed {place} of {len(ranked)} "
                f"(conservative {rating:.2f}, {played} matches); the top {keep} go on"
            )
            record(session, competition, f"cut:{stage}:{bot}", "cut", bot, reason, now, stage)
    competition.stage += 1


def _winners(session: Session, competition: Competition, stage: int) -> list[int | None]:
    """Who went on from each slot of a bracket stage, in slot order (None: nobody did)."""
    rows = session.exec(
        select(CompetitionDecision).where(
            CompetitionDecision.competition_id == competition.id,
            CompetitionDecision.kind == "advance",
            CompetitionDecision.stage == stage,
        )
    ).all()
    by_slot = {int(row.key.rsplit(":", 1)[1]): row.bot_id for row in rows}
    return [bot for _, bot in sorted(by_slot.items())]


def _stage_league_ids(session: Session, competition: Competition) -> list[int]:
    return list(
        session.exec(
            select(CompetitionStage.league_id).where(CompetitionStage.competition_id == competition.id)
        ).all()
    )


def finals_ranking(
    session: Session, competition: Competition, dropped_too: bool = False
) -> list[tuple[int, float, float, float, int, int]]:
    """(bot, mu, sigma, conservative, matches, wins) of every finalist still in (``dropped_too``:
    of every frozen entry), best first: a TrueSkill rating reset to the start value and moved by
    the finals' matches only."""
    start = settings_for(competition.game)
    ratings: dict[int, tuple[float, float]] = {}
    played: dict[int, int] = defaultdict(int)
    wins: dict[int, int] = defaultdict(int)
    for _, seats in finished_matches(session, _stage_league_ids(session, competition)):
        before = [ratings.get(bot, (start.mu, start.sigma)) for bot, _, _ in seats]
        after = rate(competition.game, before, [rank for _, rank, _ in seats])
        for (bot, rank, _), moved in zip(seats, after, strict=True):
            ratings[bot] = moved
            played[bot] += 1
            wins[bot] += rank == 1
    entries = finalists(session, competition, dropped_too)
    seeds = {entry.bot_id: (entry.seed or 0, entry.position) for entry in entries}
    rows = []
    for entry in entries:
        mu, sigma = ratings.get(entry.bot_id, (start.mu, start.sigma))
        rows.append(
            (entry.bot_id, mu, sigma, conservative(mu, sigma), played[entry.bot_id], wins[entry.bot_id])
        )
    rows.sort(key=lambda row: (-row[3], -row[1], -row[5], seeds[row[0]]))
    return rows


def standings_and_stages(
    session: Session, competition: Competition
) -> tuple[tuple[StandingInfo, ...], tuple[StageLeague, ...]]:
    """What ``competition status`` and the website show: before the deadline, the open ladder's
    standings; from then on, the finals' (those still in first, then the rest by how far they
    got); and every stage league with its bots and finished matches."""
    entries = session.exec(
        select(CompetitionEntry).where(CompetitionEntry.competition_id == competition.id)
    ).all()
    names = names_in(session, [entry.bot_id for entry in entries])
    by_bot = {entry.bot_id: entry for entry in entries}
    if competition.phase == CompetitionPhase.OPEN and competition.tiers:
        standings = tier_standings(session, competition)
    elif competition.phase == CompetitionPhase.OPEN:
        rows = session.exec(select(LeagueBot).where(LeagueBot.league_id == competition.league_id)).all()
        ranked = sorted(
            (row for row in rows if row.bot_id in by_bot),
            key=lambda row: (-conservative(row.mu, row.sigma), by_bot[row.bot_id].position),
        )
        active = {
            bot.id: bot.active_version
            for bot in session.exec(select(Bot).where(col(Bot.id).in_(list(by_bot)))).all()
        }
        played = finished_record(session, competition.league_id)
        standings = tuple(
            StandingInfo(place, names[row.bot_id], active.get(row.bot_id), row.mu, row.sigma,
                         conservative(row.mu, row.sigma), *played.get(row.bot_id, (0, 0)))
            for place, row in enumerate(ranked, start=1)
        )  # fmt: skip
    else:
        standings = _finals_standings(session, competition, by_bot, names)
    stages = []
    for row in session.exec(
        select(CompetitionStage)
        .where(CompetitionStage.competition_id == competition.id)
        .order_by(col(CompetitionStage.stage), col(CompetitionStage.slot))
    ).all():
        league = session.get(League, row.league_id)
        assert league is not None
        bots = session.exec(
            select(Bot.name).join(LeagueBot, col(LeagueBot.bot_id) == col(Bot.id))
            .where(LeagueBot.league_id == row.league_id).order_by(col(LeagueBot.position))
        ).all()  # fmt: skip
        finished = [match_id for match_id, _ in finished_matches(session, [row.league_id])]
        stages.append(
            StageLeague(row.stage, row.slot, league.name, tuple(bots), league.finished, tuple(finished))
        )
    return standings, tuple(stages)


def _stage_results(
    session: Session, competition: Competition, ladder_order: list[int]
) -> dict[int, tuple[float, ...]]:
    """How each entry did in the stage it went out at, as a sort key (smaller is better), so that
    entries out in the same stage stand in the order that stage's decision gave them: in a reset
    ladder its finals rating (frozen since: a cut entry plays no more), in a bracket its meeting's
    wins then score; an entry dropped (no result) after those who played."""
    if competition.finals["format"] == "ladder":
        return {bot: (float(place),) for place, bot in enumerate(ladder_order)}
    results: dict[int, tuple[float, ...]] = defaultdict(lambda: (1.0, 0.0, 0.0))
    rows = session.exec(select(CompetitionStage).where(CompetitionStage.competition_id == competition.id))
    for row in rows:
        wins, scores = meeting_record(session, row.league_id)
        for bot in wins.keys() | scores.keys():
            entry = session.get(CompetitionEntry, (competition.id, bot))
            if entry is not None and entry.out_at_stage == row.stage:
                results[bot] = (0.0, -float(wins[bot]), -float(scores[bot]))
    return results


def _finals_standings(
    session: Session, competition: Competition, by_bot: dict[int, CompetitionEntry], names: dict[int, str]
) -> tuple[StandingInfo, ...]:
    ranked = finals_ranking(session, competition)
    order = [row[0] for row in ranked]
    everyone = finals_ranking(session, competition, dropped_too=True)
    figures = {row[0]: row for row in everyone}
    points: dict[int, tuple[float, float]] = {}
    if competition.finals["format"] == "swiss":
        by_points = swiss_ranking(session, competition)
        order = [bot for bot, *_ in by_points]
        points = {bot: (score, buchholz) for bot, score, buchholz, _ in by_points}
    result = _stage_results(session, competition, [row[0] for row in everyone])
    once = first_losses(session, competition) if competition.finals["format"] == DOUBLE_ELIMINATION else set()
    out = sorted(
        (e for e in by_bot.values() if e.out_at_stage is not None),
        key=lambda e: (-(e.out_at_stage or 0), result[e.bot_id], e.seed or 0, e.position),
    )
    standings = []
    for place, bot in enumerate(order + [e.bot_id for e in out], start=1):
        entry = by_bot[bot]
        _, mu, sigma, rating, played, won = figures.get(bot, (bot, 0.0, 0.0, 0.0, 0, 0))
        if bot == competition.winner_bot_id:
            note = "winner"
        elif entry.out_at_stage is not None:
            note = f"out after stage {entry.out_at_stage}"
        else:
            note = "in the finals" if competition.phase == CompetitionPhase.FINALS else "frozen"
            if bot in once:
                note += ", lost once"
        standings.append(
            StandingInfo(
                place,
                names[bot],
                entry.frozen_version,
                mu,
                sigma,
                rating,
                played,
                won,
                note,
                points.get(bot, (0.0, 0.0))[0],
                buchholz=points.get(bot, (0.0, 0.0))[1],
            )
        )
    dropped = [e for e in by_bot.values() if e.frozen_version is None]
    for offset, entry in enumerate(dropped, start=len(standings) + 1):
        standings.append(StandingInfo(offset, names[entry.bot_id], None, 0.0, 0.0, 0.0, 0, 0, "dropped"))
    return tuple(standings)


def bracket_meetings(session: Session, competition: Competition) -> tuple[BracketMeeting, ...]:
    """Every meeting of a bracket's tree from its first stage to its final: the pairs as seeded,
    the winners decided so far, and the meetings to come with whoever is known of them."""
    if competition.finals["format"] == DOUBLE_ELIMINATION:
        return double_meetings(session, competition)
    seeded = [entry.bot_id for entry in finalists(session, competition, dropped_too=True)]
    if competition.finals["format"] != "bracket" or competition.stage == 0 or not seeded:
        return ()
    names = names_in(session, seeded)
    leagues = stage_league_names(session, competition)
    decided = advance_decisions(session, competition)
    meetings: list[BracketMeeting] = []
    pairs = first_stage(seeded)
    for stage in range(1, stages(len(seeded)) + 1):
        winners: list[int | None] = []
        for slot, (a, b) in enumerate(pairs):
            winner = decided.get((stage, slot))
            meetings.append(
                BracketMeeting(
                    stage, slot, (_name(names, a), _name(names, b)), _name(names, winner),
                    leagues.get((stage, slot)),
                )
            )  # fmt: skip
            winners.append(winner)
        pairs = next_stage(winners) if len(winners) > 1 else []
    return tuple(meetings)


def _name(names: dict[int, str], bot: int | None) -> str | None:
    return names.get(bot) if bot is not None else None
