"""Tiers of a competition, as CodinGame's leagues (Wood -> Bronze -> ...): while it is open each
tier is its own continuous ladder league (``NAME.t1``, ``NAME.t2``, ...) of its entries and its
boss, a bot the admin registered that plays there but is never an entry. Entries start in the
lowest tier; one that, after ``promote_after`` finished matches in that tier, finished above its
tier's boss in most of the matches they met in there (results in the tier alone, never a rating
earned elsewhere) moves up to the next one. The top tier has no
tier above it (its boss, if it has one, only plays).

Crash-safe as the rest of the competition: a promotion moves the entry's tier and records its
decision in one transaction (its key, ``promote:BOT:TIER:SINCE``, is unique), and the leagues'
memberships are then brought to the tiers by ``ensure_tier_leagues``, which any later look
finishes if a crash came between the two.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from kingmaker.ladder import bounds
from kingmaker.ladder.bots.entrants import active_bots_for
from kingmaker.ladder.competitions.competition_records import StandingInfo
from kingmaker.ladder.competitions.competition_results import finished_record
from kingmaker.ladder.competitions.competition_rows import by_name, record
from kingmaker.ladder.competitions.league_records import meetings_with
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, NotFoundError
from kingmaker.ladder.leagues import leagues, membership
from kingmaker.ladder.ratings.ratings import conservative
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import (
    Bot,
    Competition,
    CompetitionEntry,
    CompetitionPhase,
    League,
    LeagueBot,
    Match,
    MatchSeat,
    MatchStatus,
)

TIER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,20}$")
MAX_TIERS = 10
MAX_PROMOTE_AFTER = bounds.PROMOTE_AFTER.high


def check_tiers(session: Session, game: str, tiers: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The tiers, lowest first, checked: at least two, names unique, every tier but the top one
    guarded by a boss (a bot that plays ``game`` now), no bot the boss of two tiers."""
    if not tiers:
        return []
    if not 2 <= len(tiers) <= MAX_TIERS:
        raise InvalidRequestError(f"give from 2 to {MAX_TIERS} tiers (lowest first), not {len(tiers)}")
    checked: list[dict[str, Any]] = []
    for index, tier in enumerate(tiers):
        name, boss = str(tier.get("name") or ""), tier.get("boss") or None
        if not TIER_NAME.match(name):
            raise InvalidRequestError(f"bad tier name {name!r}: 1 to 20 letters, digits, '-' or '_'")
        if any(t["name"] == name for t in checked):
            raise InvalidRequestError(f"two tiers are named {name!r}")
        if boss is None and index < len(tiers) - 1:
            raise InvalidRequestError(
                f"tier {name!r} needs a boss (NAME=BOT): only the top tier may have none"
            )
        if boss is not None:
            active_bots_for(session, game, [boss])
            if any(t["boss"] == boss for t in checked):
                raise InvalidRequestError(f"bot {boss} cannot be the boss of two tiers")
        checked.append({"name": name, "boss": boss})
    return checked


def check_promote_after(count: int | None) -> int:
    count = count if count else 10
    if not 1 <= count <= MAX_PROMOTE_AFTER:
        raise InvalidRequestError(f"promote_after must be from 1 to {MAX_PROMOTE_AFTER} matches")
    return count


def tier_league_name(competition: str, index: int) -> str:
    return f"{competition}.t{index + 1}"


def is_tier_league(competition: str, league: str) -> bool:
    """Whether ``league`` is one of the competition's tier ladders (``NAME.t1``...)."""
    return re.fullmatch(re.escape(competition) + r"\.t\d+", league) is not None


def is_boss(competition: Competition, bot_name: str) -> bool:
    return any(tier["boss"] == bot_name for tier in competition.tiers)


def ensure_tier_leagues(db: Database, name: str) -> tuple[list[str], list[str]]:
    """Make each tier's ladder league once its entries and boss can fill a match, and bring its
    members to the tier: its boss and its entries join, entries promoted out of it leave. Each
    change is its own transaction, so a call interrupted is finished by the next. Returns the
    tiers' leagues (to run) and those whose members changed."""
    to_run: list[str] = []
    changed: list[str] = []
    with db.read() as session:
        competition = by_name(session, name)
        if competition.phase != CompetitionPhase.OPEN:
            return [], []
        entries = [
            (tier, bot.name, _plays_now(bot))
            for tier, bot in session.exec(
                select(CompetitionEntry.tier, Bot)
                .join(Bot, col(Bot.id) == col(CompetitionEntry.bot_id))
                .where(CompetitionEntry.competition_id == competition.id)
                .order_by(col(CompetitionEntry.position))
            ).all()
        ]
        tiers, players, game = list(competition.tiers), competition.players, competition.game
        linked = competition.league_id is not None
    for index, tier in enumerate(tiers):
        league_name = tier_league_name(name, index)
        in_tier = [bot for at, bot, plays in entries if at == index and plays]
        elsewhere = {bot for at, bot, _ in entries if at != index}
        wanted = in_tier + (
            [tier["boss"]] if tier["boss"] is not None and _may_play(db, tier["boss"]) else []
        )
        with db.read() as session:
            league = session.exec(select(League).where(League.name == league_name)).first()
            present = set(
                session.exec(
                    select(Bot.name)
                    .join(LeagueBot, col(LeagueBot.bot_id) == col(Bot.id))
                    .where(LeagueBot.league_id == league.id, col(LeagueBot.left_at).is_(None))
                ).all()
                if league is not None
                else []
            )
        if league is None:
            if not in_tier or len(wanted) < players:
                continue
            with contextlib.suppress(ConflictError):  # made by a call beside this one
                leagues.create_league(db, league_name, game, wanted, format="ladder", players=players)
            present = set(wanted)
        moved = False
        for bot in wanted:
            if bot not in present:
                with contextlib.suppress(ConflictError):  # joined by a call beside this one
                    membership.join_league(db, league_name, bot)
                moved = True
        for bot in sorted(present & elsewhere):
            with contextlib.suppress(NotFoundError):  # left already
                membership.leave_league(db, league_name, bot)
            moved = True
        to_run.append(league_name)
        if moved:
            changed.append(league_name)
    lowest = tier_league_name(name, 0)
    if not linked and lowest in to_run:  # the lowest tier's league is the competition's open ladder
        league_id = leagues.get_league(db, lowest).id
        with db.transaction() as session:
            row = by_name(session, name, lock=True)
            row.league_id = league_id
            session.add(row)
    return to_run, changed


def _may_play(db: Database, bot_name: str) -> bool:
    with db.read() as session:
        bot = session.exec(select(Bot).where(Bot.name == bot_name)).first()
        return bot is not None and _plays_now(bot)


def _plays_now(bot: Bot) -> bool:
    """A bot that may not play now (disabled, suspended, removed) is left out of the tier ladders,
    not out of the competition."""
    return bot.enabled and bot.suspended_reason is None and bot.retired_at is None


def promote(db: Database, name: str, now: datetime) -> list[str]:
    """Promote every entry that finished above its tier's boss in most of their meetings there,
    after the stated number of matches in that tier (once each: the tier and the decision change
    together). Returns their names."""
    promoted: list[str] = []
    with db.transaction() as session:
        competition = by_name(session, name, lock=True)
        if competition.phase != CompetitionPhase.OPEN or now >= competition.closes_at:
            return []
        tiers = competition.tiers
        for index, tier in enumerate(tiers[:-1]):
            league = session.exec(select(League).where(League.name == tier_league_name(name, index))).first()
            boss = session.exec(select(Bot).where(Bot.name == tier["boss"])).first()
            if league is None or boss is None:
                continue
            rows = {
                row.bot_id: row
                for row in session.exec(select(LeagueBot).where(LeagueBot.league_id == league.id))
            }
            if boss.id not in rows:
                continue
            counted: dict[int, tuple[dict[int, int], dict[int, tuple[int, int]]]] = {}
            for entry, bot in entries_in_tier(session, competition, index):
                since = entry.tier_since_match  # results in this tier alone, since it came in
                if since not in counted:
                    counted[since] = (
                        finished_counts(session, league.id, since),
                        meetings_with(session, league.id or 0, boss.id or 0, since),
                    )
                played, against = counted[since]
                row = rows.get(entry.bot_id)
                if (
                    row is None
                    or row.left_at is not None
                    or played.get(entry.bot_id, 0) < competition.promote_after
                ):
                    continue
                above, met = against.get(entry.bot_id, (0, 0))
                if 2 * above <= met:  # not above the boss in most of their meetings here
                    continue
                upper = tiers[index + 1]["name"]
                reason = (
                    f"{bot.name} promoted from {tier['name']} to {upper}: above boss {boss.name} in {above} "
                    f"of {met} meetings in {tier['name']}, after {played[entry.bot_id]} matches there"
                )
                key = f"promote:{bot.id}:{index + 1}:{since}"
                if record(session, competition, key, "promote", bot.id, reason, now):
                    move_tier(session, entry, index + 1)
                    promoted.append(bot.name)
    return promoted


def entries_in_tier(
    session: Session, competition: Competition, tier: int
) -> list[tuple[CompetitionEntry, Bot]]:
    """The entries in ``tier`` now, with their bots, in order of entry."""
    return list(
        session.exec(
            select(CompetitionEntry, Bot)
            .join(Bot, col(Bot.id) == col(CompetitionEntry.bot_id))
            .where(CompetitionEntry.competition_id == competition.id, CompetitionEntry.tier == tier)
            .order_by(col(CompetitionEntry.position))
        ).all()
    )


def move_tier(session: Session, entry: CompetitionEntry, tier: int) -> None:
    """Put the entry in ``tier``; its record there counts from the matches made after now."""
    entry.tier = tier
    entry.tier_since_match = session.exec(select(func.max(Match.id))).one() or 0
    session.add(entry)


def finished_counts(session: Session, league_id: int | None, after: int = 0) -> dict[int, int]:
    """Finished matches each bot played in the league (those with an id above ``after``)."""
    rows = session.exec(
        select(MatchSeat.bot_id, func.count())
        .join(Match, col(Match.id) == col(MatchSeat.match_id))
        .where(Match.league_id == league_id, Match.status == MatchStatus.FINISHED, col(Match.id) > after)
        .group_by(col(MatchSeat.bot_id))
    ).all()
    return {bot_id: int(count) for bot_id, count in rows}


def tier_league_id(session: Session, competition: Competition, tier: int) -> int | None:
    """The league an entry of ``tier`` played while open: its tier's, or the open ladder."""
    if not competition.tiers:
        return competition.league_id
    name = tier_league_name(competition.name, tier)
    return session.exec(select(League.id).where(League.name == name)).first()


def tier_leagues(session: Session, competition: Competition) -> list[League]:
    names = [tier_league_name(competition.name, index) for index in range(len(competition.tiers))]
    return list(session.exec(select(League).where(col(League.name).in_(names))).all())


def tier_standings(session: Session, competition: Competition) -> tuple[StandingInfo, ...]:
    """While open: each tier's standings, the top tier first, its boss among them (placed, but
    marked: it is never an entry); ``matches`` are the finished ones in that tier."""
    entries = {e.bot_id: e for e in session.exec(
        select(CompetitionEntry).where(CompetitionEntry.competition_id == competition.id))}  # fmt: skip
    standings: list[StandingInfo] = []
    for index in reversed(range(len(competition.tiers))):
        tier = competition.tiers[index]
        league = session.exec(
            select(League).where(League.name == tier_league_name(competition.name, index))
        ).first()
        if league is None:
            continue
        played = finished_record(session, league.id)
        rows = [
            (row, bot)
            for row, bot in session.exec(
                select(LeagueBot, Bot).join(Bot, col(Bot.id) == col(LeagueBot.bot_id))
                .where(LeagueBot.league_id == league.id, col(LeagueBot.left_at).is_(None))
            ).all()
            if bot.name == tier["boss"] or (bot.id in entries and entries[bot.id].tier == index)
        ]  # fmt: skip
        rows.sort(key=lambda pair: (-conservative(pair[0].mu, pair[0].sigma), pair[1].name))
        for place, (row, bot) in enumerate(rows, start=1):
            note = f"boss of {tier['name']}" if bot.name == tier["boss"] else ""
            standings.append(
                StandingInfo(place, bot.name, bot.active_version, row.mu, row.sigma,
                             conservative(row.mu, row.sigma), *played.get(row.bot_id, (0, 0)), note,
                             tier=tier["name"])
            )  # fmt: skip
    return tuple(standings)
