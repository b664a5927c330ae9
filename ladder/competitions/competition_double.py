"""Double-elimination finals (``--finals double_elimination``; 2 seats; Battlecode's): the
bracket of ``double_elimination`` played through the competition's stages. Each meeting is a
league of ``best_of`` duplicate pairs, as in a single-elimination bracket, and is decided by the
same rule (more matches won, then the higher total score, then the better seed).

Every decision is a function of what is stored (the seeds and the ``advance`` decision of each
meeting decided), so a stage decided again after a crash finds the same bracket, and its decisions
(keyed by stage and slot) are recorded once; the stage and its decisions move in one transaction.
A first loss is a ``losers`` decision (the entry drops to the losers' bracket), a second one an
``eliminated`` decision (the entry is out after that stage); a grand final the losers' bracket's
winner takes is a ``reset`` decision, and one more stage decides.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from kingmaker.ladder.bots.bots import names_in
from kingmaker.ladder.competitions.competition_records import BracketMeeting
from kingmaker.ladder.competitions.competition_results import (
    Pair,
    advance_decisions,
    finalists,
    mark_out,
    pair_result,
    publish_winner,
    stage_league_names,
)
from kingmaker.ladder.competitions.competition_rows import record
from kingmaker.ladder.competitions.double_elimination import (
    GRAND_FINAL,
    WINNERS,
    Meeting,
    Place,
    Resolved,
    Source,
    at_stage,
    champion,
    resolve,
)
from kingmaker.ladder.storage.models import (
    Competition,
    CompetitionDecision,
    CompetitionPhase,
)

DOUBLE_ELIMINATION = "double_elimination"


def double_bracket(session: Session, competition: Competition) -> list[Resolved]:
    """The bracket as the stored seeds and decisions make it."""
    seeded = [entry.bot_id for entry in finalists(session, competition, dropped_too=True)]
    return resolve(seeded, advance_decisions(session, competition))


def double_plan(session: Session, competition: Competition) -> list[Pair]:
    """The current stage's meetings in slot order; an entry no longer in (dropped) is None, so
    the other has a walkover."""
    still = {entry.bot_id for entry in finalists(session, competition)}
    plan: list[Pair] = []
    for row in at_stage(double_bracket(session, competition), competition.stage):
        a, b = row.pair if row.pair is not None and row.needed else (None, None)
        plan.append((a if a in still else None, b if b in still else None))
    return plan


def decide_double_stage(session: Session, competition: Competition, now: datetime) -> None:
    """Every meeting of the current stage has finished: record who goes on and what each loss
    does, then go on to the next stage, or publish the winner."""
    stage = competition.stage
    plan = double_plan(session, competition)
    rows = at_stage(double_bracket(session, competition), stage)
    for row, (a, b) in zip(rows, plan, strict=True):
        meeting = row.meeting
        where = f"{meeting.label} (stage {stage})"
        key = f"{stage}:{meeting.slot}"
        if not row.needed:
            continue
        if a is None and b is None:
            reason = f"nobody goes on from {where}: both seats are empty"
            record(session, competition, f"advance:{key}", "advance", None, reason, now, stage)
            continue
        winner, loser, reason = pair_result(session, competition, stage, meeting.slot, (a, b), where)
        record(session, competition, f"advance:{key}", "advance", winner, reason, now, stage)
        if loser is None:
            continue
        names = names_in(session, [winner, loser])
        if meeting.side == WINNERS:
            why = f"{names[loser]} drops to the losers' bracket after its first loss, in {where}"
            record(session, competition, f"losers:{key}", "losers", loser, why, now, stage)
        elif meeting.side == GRAND_FINAL and row.pair is not None and winner == row.pair[1]:
            why = (
                f"{names[winner]}, from the losers' bracket, won {where}: {names[loser]} has lost once "
                "too, and they meet again in the reset"
            )
            record(session, competition, f"reset:{key}", "reset", loser, why, now, stage)
        else:
            mark_out(session, competition, loser, stage)
            why = f"{names[loser]} is out after its second loss, in {where}"
            record(session, competition, f"out:{key}", "eliminated", loser, why, now, stage)
    session.flush()
    bracket = double_bracket(session, competition)
    over, champion_id = champion(bracket)
    if not over:
        competition.stage += 1
    elif champion_id is None:
        competition.phase = CompetitionPhase.FINAL
        why = "no winner: nobody was left to play the grand final"
        record(session, competition, "winner", "winner", None, why, now, stage)
    else:
        last = next(row for row in reversed(bracket) if row.needed)
        publish_winner(session, competition, champion_id, now, f"won {last.meeting.label} (stage {stage})")


def first_losses(session: Session, competition: Competition) -> set[int]:
    """The entries that have lost once (to the losers' bracket, or a grand final's reset)."""
    rows = session.exec(
        select(CompetitionDecision.bot_id).where(
            CompetitionDecision.competition_id == competition.id,
            col(CompetitionDecision.kind).in_(("losers", "reset")),
        )
    ).all()
    return {bot for bot in rows if bot is not None}


def double_meetings(session: Session, competition: Competition) -> tuple[BracketMeeting, ...]:
    """Every meeting of the three trees (winners', losers', the grand final and its reset) with
    whoever is known of it, its winner and its league: what the page draws."""
    if competition.stage == 0:
        return ()
    bracket = double_bracket(session, competition)
    bots = [bot for row in bracket if row.pair for bot in row.pair if bot is not None]
    names = names_in(session, bots)
    leagues = stage_league_names(session, competition)
    by_place = {(row.meeting.stage, row.meeting.slot): row.meeting for row in bracket}
    shown = []
    for row in bracket:
        meeting = row.meeting
        pair = row.pair or (None, None)
        shown.append(
            BracketMeeting(
                meeting.stage, meeting.slot,
                (names.get(pair[0]) if pair[0] is not None else None,
                 names.get(pair[1]) if pair[1] is not None else None),
                names.get(row.winner) if row.decided and row.winner is not None else None,
                leagues.get((meeting.stage, meeting.slot)),
                side=meeting.side, round=meeting.round, index=meeting.index,
                waiting=(
                    (_waits(meeting.sources[0], by_place), _waits(meeting.sources[1], by_place))
                    if row.pair is None else ("", "")
                ),
                played=row.needed,
            )
        )  # fmt: skip
    return tuple(shown)


def _waits(source: Source, by_place: dict[Place, Meeting]) -> str:
    """What a seat not known yet waits for, as the page labels it: "loser of W2.1"."""
    if source.kind == "seed":
        return f"seed {source.seed}"
    meeting = by_place[source.meeting]
    short = {"winners": "W", "losers": "L"}.get(meeting.side, "GF")
    return f"{source.kind} of {short}{meeting.round}.{meeting.index + 1}"
