"""A competition's phases, moved by a clock its caller passes in (``now``): open -> closed at the
deadline -> finals (``start_finals``) -> final when a winner is published.

Every step is idempotent and made of transactions that each leave the competition whole: a
deadline that passed while the server was down is applied when it next looks (``apply_clock``);
a step interrupted between two of its transactions is finished by the next call, which finds what
the first wrote (leagues by their names, decisions by their keys) rather than writing it twice.
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session, col, select

from kingmaker.ladder.competitions import competition_tiers
from kingmaker.ladder.competitions.competition_double import DOUBLE_ELIMINATION
from kingmaker.ladder.competitions.competition_finals import (
    decide_stage,
    groups_to_play,
    stage_league_name,
    stage_plan,
)
from kingmaker.ladder.competitions.competition_relegation import relegate
from kingmaker.ladder.competitions.competition_rows import by_name, format_time, record
from kingmaker.ladder.competitions.competition_swiss import record_byes
from kingmaker.ladder.competitions.competitions import ensure_open_league
from kingmaker.ladder.competitions.league_records import version_ratings
from kingmaker.ladder.errors import ConflictError, InvalidRequestError
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import (
    Bot,
    Competition,
    CompetitionEntry,
    CompetitionPhase,
    CompetitionStage,
    League,
)


@dataclass
class ClockWork:
    """What a look at the clock asks the server to do with leagues."""

    to_run: list[str] = field(default_factory=list)
    """Leagues to play now (open ladders that opened, finals stages)."""
    to_stop: list[str] = field(default_factory=list)
    """Open ladders of competitions that closed (their waiting matches are cancelled)."""
    changed: list[str] = field(default_factory=list)
    """Competitions whose phase or stage moved."""
    entrants_changed: list[str] = field(default_factory=list)
    """Tier leagues whose members moved (a promotion): their running ladders look again."""


STEPS = threading.RLock()
"""Taken by every step that moves a competition, so the server's clock task and a command never
run one beside the other in this process (their transactions keep a second process safe)."""


def apply_clock(db: Database, now: datetime) -> ClockWork:
    """Bring every competition up to ``now``: close those past their deadline, decide the finals'
    stages that ended, and say which leagues should be running."""
    with STEPS:
        return _apply_clock(db, now)


def _apply_clock(db: Database, now: datetime) -> ClockWork:
    work = ClockWork()
    with db.read() as session:
        rows = session.exec(select(Competition).where(Competition.phase != CompetitionPhase.FINAL)).all()
        names = [
            (row.name, row.phase, row.opens_at, row.closes_at, bool(row.tiers), finals_start(row))
            for row in rows
        ]
    for name, phase, opens_at, closes_at, tiered, finals_at in names:
        if phase == CompetitionPhase.OPEN and now >= closes_at:
            close(db, name, now)
            work.changed.append(name)
            phase = CompetitionPhase.CLOSED
        if phase == CompetitionPhase.OPEN and now >= opens_at and tiered:
            promoted = competition_tiers.promote(db, name, now)
            if relegate(db, name, now) or promoted:  # each moves its entries once
                work.changed.append(name)
            to_run, moved = competition_tiers.ensure_tier_leagues(db, name)
            work.to_run.extend(to_run)
            work.entrants_changed.extend(moved)
        elif phase == CompetitionPhase.OPEN and now >= opens_at:
            league = ensure_open_league(db, name)
            if league is not None:
                work.to_run.append(league)
        if phase == CompetitionPhase.CLOSED:
            work.to_stop.extend(_open_league_if_running(db, name))
            if now >= finals_at:  # the finals start by themselves, decided once (the phase moves)
                phase = _finals_by_clock(db, name, now)
                if name not in work.changed:
                    work.changed.append(name)
        if phase == CompetitionPhase.FINALS:
            if advance(db, name, now):
                work.changed.append(name)
            work.to_run.extend(ensure_stage_leagues(db, name, now))
    return work


def finals_start(competition: Competition) -> datetime:
    """When the finals start by themselves: the stated time, else the deadline."""
    return competition.finals_at or competition.closes_at


def _finals_by_clock(db: Database, name: str, now: datetime) -> str:
    """Start the finals at their time; if the frozen entries cannot fill one match, say so and end
    the competition with no winner, so that it never sits closed waiting for someone. The phase
    it is in afterwards."""
    try:
        _start_finals(db, name, now, by_clock=True)
    except InvalidRequestError as refused:
        with db.transaction() as session:
            competition = by_name(session, name, lock=True)
            if competition.phase == CompetitionPhase.CLOSED:
                competition.phase = CompetitionPhase.FINAL
                session.add(competition)
                record(session, competition, "winner", "winner", None, f"no winner: {refused}", now)
    with db.read() as session:
        return by_name(session, name).phase


def close(db: Database, name: str, now: datetime) -> None:
    """The deadline has passed: freeze each entry at its selected version, or the one active now
    (dropping those with none), seed them by the open ladder, and close. Once only."""
    with db.transaction() as session:
        competition = by_name(session, name, lock=True)
        if competition.phase != CompetitionPhase.OPEN:
            return
        entries = session.exec(
            select(CompetitionEntry, Bot)
            .join(Bot, col(Bot.id) == col(CompetitionEntry.bot_id))
            .where(CompetitionEntry.competition_id == competition.id)
        ).all()
        by_league: dict[int | None, dict[tuple[int, int | None], tuple[float, int]]] = {}
        frozen = []
        for entry, bot in entries:
            version = entry.selected_version or bot.active_version
            unusable = _unusable(bot)
            if version is None or unusable:
                why = unusable or "it has no version that passed validation"
                record(
                    session, competition, f"drop:{bot.id}", "drop", bot.id, f"{bot.name} dropped: {why}", now
                )
                continue
            entry.frozen_version = version
            league_id = competition_tiers.tier_league_id(session, competition, entry.tier)
            if league_id not in by_league:  # the version's own record there, never a rating from elsewhere
                by_league[league_id] = version_ratings(session, competition.game, league_id)
            frozen.append((entry, bot, by_league[league_id].get((bot.id or 0, version))))
            how = "selected by its author" if entry.selected_version else "active at the deadline"
            reason = f"{bot.name} frozen at v{version} ({how})"
            record(session, competition, f"freeze:{bot.id}", "freeze", bot.id, reason, now)
        # The higher tier first; then the frozen version's own record there; one that never played
        # there after those that did; then the order of entry (docs/competitions.md).
        frozen.sort(key=lambda row: (-row[0].tier, row[2] is None, -(row[2] or (0.0, 0))[0], row[0].position))
        for seed, (entry, bot, own) in enumerate(frozen, start=1):
            entry.seed = seed
            session.add(entry)
            where = "the open ladder"
            if competition.tiers:
                where = f"tier {competition.tiers[entry.tier]['name']}"
            shown = (
                f"v{entry.frozen_version}'s own record in {where}: conservative {own[0]:.2f} "
                f"over {own[1]} matches"
                if own is not None
                else f"v{entry.frozen_version} never played in {where}: seeded after those that did"
            )
            record(
                session,
                competition,
                f"seed:{bot.id}",
                "seed",
                bot.id,
                f"{bot.name} seeded {seed} ({shown})",
                now,
            )
        competition.phase = CompetitionPhase.CLOSED
        session.add(competition)
        record(
            session, competition, "close", "close", None,
            f"closed at its deadline {format_time(competition.closes_at)}; {len(frozen)} entries frozen", now,
        )  # fmt: skip


def start_finals(db: Database, name: str, now: datetime) -> list[str]:
    """Start the finals (or resume them): returns the leagues of the current stage to run."""
    with STEPS:
        return _start_finals(db, name, now)


def _start_finals(db: Database, name: str, now: datetime, by_clock: bool = False) -> list[str]:
    with db.read() as session:
        phase = by_name(session, name).phase
    if phase == CompetitionPhase.OPEN:
        with db.read() as session:
            competition = by_name(session, name)
            if now < competition.closes_at:
                raise InvalidRequestError(
                    f"competition {name!r} is open until {format_time(competition.closes_at)}: "
                    "finals start after it closes"
                )
        close(db, name, now)
    with db.transaction() as session:
        competition = by_name(session, name, lock=True)
        if competition.phase == CompetitionPhase.FINAL:
            raise InvalidRequestError(f"competition {name!r} is final: its winner is published")
        if competition.phase == CompetitionPhase.CLOSED:
            in_finals = sum(1 for entry in _frozen(session, competition))
            if in_finals < competition.players:
                raise InvalidRequestError(
                    f"{in_finals} frozen entries cannot fill a {competition.players}-seat match: no finals"
                )
            competition.phase, competition.stage = CompetitionPhase.FINALS, 1
            session.add(competition)
            when = (
                f"at their stated time {format_time(finals_start(competition))}"
                if by_clock
                else "by the admin, before their time"
                if now < finals_start(competition)
                else "by the admin"
            )
            record(
                session, competition, "finals", "finals", None,
                f"finals started {when} ({_describe(competition)})", now, 1,
            )  # fmt: skip
    advance(db, name, now)  # a stage of byes only is decided at once
    return ensure_stage_leagues(db, name, now)


def advance(db: Database, name: str, now: datetime) -> bool:
    """Decide the current stage if all of its leagues have finished (and then the next, if it
    needs no match). True if the competition moved."""
    moved = False
    while True:
        ensure_stage_leagues(db, name, now)
        with db.transaction() as session:
            competition = by_name(session, name, lock=True)
            if competition.phase != CompetitionPhase.FINALS:
                return moved
            if not _stage_over(session, competition):
                return moved
            decide_stage(session, competition, now)
            session.add(competition)
        moved = True


def ensure_stage_leagues(db: Database, name: str, now: datetime) -> list[str]:
    """Create the current stage's leagues that are missing (each pinned to the frozen versions),
    and return the names of those not finished."""
    drop_unusable(db, name, now)
    with db.read() as session:
        competition = by_name(session, name)
        if competition.phase != CompetitionPhase.FINALS:
            return []
        groups = groups_to_play(stage_plan(session, competition))
        linked = {
            row.slot: row.league_id
            for row in session.exec(
                select(CompetitionStage).where(
                    CompetitionStage.competition_id == competition.id,
                    CompetitionStage.stage == competition.stage,
                )
            ).all()
        }
        names = {bot.id: bot.name for bot in session.exec(select(Bot)).all()}
        versions = {
            names[e.bot_id]: e.frozen_version
            for e in session.exec(
                select(CompetitionEntry).where(CompetitionEntry.competition_id == competition.id)
            )
            if e.frozen_version is not None
        }
    settings = competition.finals
    rounds = settings["rounds"] if settings["format"] == "ladder" else settings["best_of"]
    if settings["format"] == "swiss":
        _record_byes(db, name, now)
    for slot, bots in groups.items():
        if slot in linked:
            continue
        league_name = stage_league_name(competition, competition.stage, slot)
        with db.read() as session:
            found = session.exec(select(League).where(League.name == league_name)).first()
        if found is None:  # else: created before a crash, not linked yet
            with contextlib.suppress(ConflictError):  # created by a call beside this one
                leagues.create_league(
                    db, league_name, competition.game, [names[bot] for bot in bots], format="round_robin",
                    players=len(bots) if settings["format"] == "swiss" else competition.players,
                    duplicate=True, rounds=rounds,
                    versions={names[bot]: versions[names[bot]] for bot in bots},
                )  # fmt: skip
        with db.transaction() as session:
            league = session.exec(select(League).where(League.name == league_name)).first()
            assert league is not None and league.id is not None and competition.id is not None
            if session.get(CompetitionStage, (competition.id, competition.stage, slot)) is None:
                session.add(
                    CompetitionStage(
                        competition_id=competition.id, stage=competition.stage, slot=slot, league_id=league.id
                    )
                )
    with db.read() as session:
        rows = session.exec(
            select(League)
            .join(CompetitionStage, col(CompetitionStage.league_id) == col(League.id))
            .where(
                CompetitionStage.competition_id == competition.id, CompetitionStage.stage == competition.stage
            )
        ).all()
        return [league.name for league in rows if not league.finished]


def _record_byes(db: Database, name: str, now: datetime) -> None:
    """A Swiss round's byes are decided with its tables (and recorded once), so the page shows
    who sits out while the round is played."""
    with db.transaction() as session:
        competition = by_name(session, name, lock=True)
        if competition.phase != CompetitionPhase.FINALS:
            return
        record_byes(session, competition, now)


def drop_unusable(db: Database, name: str, now: datetime) -> None:
    """Drop from the finals the entries whose bot was disabled, suspended or removed, before a
    stage without a league yet is made with them: a bracket pair gives a walkover, a ladder or
    Swiss stage goes on without them. (In a stage already made, their waiting matches are
    cancelled when claimed, as in every league.)"""
    with db.transaction() as session:
        competition = by_name(session, name, lock=True)
        if competition.phase != CompetitionPhase.FINALS:
            return
        linked = set(
            session.exec(
                select(CompetitionStage.slot).where(
                    CompetitionStage.competition_id == competition.id,
                    CompetitionStage.stage == competition.stage,
                )
            ).all()
        )
        if linked and competition.finals["format"] not in ("bracket", DOUBLE_ELIMINATION):
            return  # its tables or group are made: a drop now would seat the rest again
        waiting = [bot for slot, bots in groups_to_play(stage_plan(session, competition)).items()
                   if slot not in linked for bot in bots]  # fmt: skip
        for bot in session.exec(select(Bot).where(col(Bot.id).in_(waiting))).all():
            why = _unusable(bot)
            entry = session.get(CompetitionEntry, (competition.id, bot.id))
            if why is None or entry is None:
                continue
            entry.out_at_stage = competition.stage
            session.add(entry)
            reason = f"{bot.name} dropped before stage {competition.stage}: {why}"
            record(session, competition, f"drop:{competition.stage}:{bot.id}", "drop", bot.id, reason, now)


def _stage_over(session: Session, competition: Competition) -> bool:
    groups = groups_to_play(stage_plan(session, competition))
    rows = session.exec(
        select(CompetitionStage).where(
            CompetitionStage.competition_id == competition.id, CompetitionStage.stage == competition.stage
        )
    ).all()
    if {row.slot for row in rows} != set(groups):
        return False
    for row in rows:
        league = session.get(League, row.league_id)
        if league is None or not league.finished:
            return False
    return True


def _open_league_if_running(db: Database, name: str) -> list[str]:
    with db.read() as session:
        competition = by_name(session, name)
        league = session.get(League, competition.league_id) if competition.league_id is not None else None
        found = [league] if league is not None else []
        found += [row for row in competition_tiers.tier_leagues(session, competition) if row not in found]
        return [row.name for row in found if not row.finished]


def _frozen(session: Session, competition: Competition) -> list[CompetitionEntry]:
    return list(
        session.exec(
            select(CompetitionEntry).where(
                CompetitionEntry.competition_id == competition.id,
                col(CompetitionEntry.frozen_version).is_not(None),
            )
        ).all()
    )


def _unusable(bot: Bot) -> str | None:
    if bot.retired_at is not None:
        return "it was removed"
    if not bot.enabled:
        return "it is disabled"
    if bot.suspended_reason is not None:
        return f"it is suspended ({bot.suspended_reason})"
    return None


def _describe(competition: Competition) -> str:
    finals = competition.finals
    if finals["format"] == "bracket":
        return f"single elimination, best of {finals['best_of']} duplicate pairs"
    if finals["format"] == DOUBLE_ELIMINATION:
        return f"double elimination, best of {finals['best_of']} duplicate pairs"
    if finals["format"] == "swiss":
        rounds, seeds = finals["rounds"], finals["best_of"]
        return f"{rounds} Swiss rounds, tables of {competition.players}, {seeds} seeds a table"
    cuts = ", ".join(str(cut) for cut in finals["cuts"]) or "none"
    return f"reset ladder, {finals['rounds']} round robins per stage, cuts to {cuts}"
