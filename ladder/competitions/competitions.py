"""Competitions: create one, enter bots, select the version that plays the finals, read one.

A competition is a season on one game: while it is **open** its entries play a continuous ladder
league (``NAME.open``) and their authors submit as they like; at its deadline it **closes** and
each entry is frozen at one version (``competition_phases``); its **finals** play only those
versions (``competition_finals``), and once a winner is published it is **final**.

Every function takes ``now``, the competition clock's time (the server's clock, which tests
control), so that nothing here reads a clock of its own.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from kingmaker.games.registry import UnknownGameError, get_game
from kingmaker.ladder import bounds
from kingmaker.ladder.bots.entrants import active_bots_for
from kingmaker.ladder.competitions import competition_tiers
from kingmaker.ladder.competitions.competition_finals import bracket_meetings, standings_and_stages
from kingmaker.ladder.competitions.competition_records import CompetitionInfo, DecisionInfo, EntryInfo
from kingmaker.ladder.competitions.competition_rows import by_name, format_time, record, refuse_after_deadline
from kingmaker.ladder.competitions.competition_swiss import swiss_rounds
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, NotFoundError
from kingmaker.ladder.leagues import leagues, membership
from kingmaker.ladder.matches.match_setup import check_game_setup
from kingmaker.ladder.names import check_name
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import (
    Author,
    Bot,
    BotVersion,
    Competition,
    CompetitionDecision,
    CompetitionEntry,
    CompetitionPhase,
    League,
    LeagueBot,
    VersionStatus,
)

NAME_LENGTH = 40
"""Competition names are shorter than other names: their leagues are named after them
(``NAME.open``, ``NAME.f2.0``) and a league name has 64 characters at most."""
FORMATS = ("ladder", "bracket", "swiss", "double_elimination")
"""Finals formats (``competition_finals``, ``competition_swiss``, ``competition_double``)."""
MAX_ROUNDS = 50
MAX_BEST_OF = 25


def parse_time(text: str) -> datetime:
    """An ISO 8601 time with its zone (``2026-12-01T18:00:00Z``) as an aware UTC datetime; a time
    without a zone is refused, so that nobody's deadline depends on a server's local time."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidRequestError(
            f"bad time {text!r}: give ISO 8601 UTC, like 2026-12-01T18:00:00Z"
        ) from None
    if moment.tzinfo is None:
        raise InvalidRequestError(f"time {text!r} has no zone: give it in UTC, like 2026-12-01T18:00:00Z")
    return moment.astimezone(UTC)


def check_finals(finals: Mapping[str, Any], players: int) -> dict[str, Any]:
    """The finals' settings, checked, with defaults filled in."""
    kind = finals.get("format", "ladder")
    if kind not in FORMATS:
        raise InvalidRequestError(f"unknown finals format {kind!r} (formats: {', '.join(FORMATS)})")
    if kind in ("bracket", "double_elimination"):
        if players != 2:
            raise InvalidRequestError(
                f"{'a bracket' if kind == 'bracket' else 'double elimination'} is for 2-seat matches, "
                f"not {players}; use --finals ladder or swiss"
            )
        best_of = int(finals.get("best_of") or 3)
        if not 1 <= best_of <= MAX_BEST_OF:
            raise InvalidRequestError(f"best_of must be from 1 to {MAX_BEST_OF}")
        return {"format": kind, "best_of": best_of}
    if kind == "swiss":
        rounds, best_of = int(finals.get("rounds") or 3), int(finals.get("best_of") or 1)
        if not 1 <= rounds <= MAX_ROUNDS or not 1 <= best_of <= MAX_BEST_OF:
            raise InvalidRequestError(
                f"Swiss: rounds from 1 to {MAX_ROUNDS}, best_of from 1 to {MAX_BEST_OF}"
            )
        return {"format": kind, "rounds": rounds, "best_of": best_of}
    rounds = int(finals.get("rounds") or 2)
    if not 1 <= rounds <= MAX_ROUNDS:
        raise InvalidRequestError(f"rounds must be from 1 to {MAX_ROUNDS}")
    cuts = [int(cut) for cut in finals.get("cuts") or []]
    for before, after in zip([None, *cuts], cuts, strict=False):
        if after < players:
            raise InvalidRequestError(f"a cut keeps at least {players} bots (one match's worth), not {after}")
        if before is not None and after >= before:
            raise InvalidRequestError(f"each cut keeps fewer bots than the one before: {cuts}")
    return {"format": kind, "rounds": rounds, "cuts": cuts}


def create_competition(
    db: Database,
    name: str,
    game: str,
    closes_at: datetime,
    now: datetime,
    *,
    opens_at: datetime | None = None,
    players: int | None = None,
    finals: Mapping[str, Any] | None = None,
    tiers: Sequence[Mapping[str, Any]] = (),
    promote_after: int | None = None,
    finals_at: datetime | None = None,
    relegate_after: int = 0,
) -> CompetitionInfo:
    """A new competition, open from ``opens_at`` (now by default) until ``closes_at``. Its open
    ladder league (``NAME.open``, or one per tier: ``competition_tiers``) is made once it has
    enough entries for a match."""
    check_name("competition", name)
    if len(name) > NAME_LENGTH:
        raise InvalidRequestError(f"a competition name has at most {NAME_LENGTH} characters")
    opens_at = opens_at or now
    if closes_at <= opens_at:
        raise InvalidRequestError(
            f"it closes ({format_time(closes_at)}) before it opens ({format_time(opens_at)})"
        )
    if closes_at <= now:
        raise InvalidRequestError(
            f"its deadline {format_time(closes_at)} has passed (it is {format_time(now)})"
        )
    if finals_at is not None and finals_at < closes_at:
        raise InvalidRequestError(
            f"its finals ({format_time(finals_at)}) cannot start before "
            f"its deadline ({format_time(closes_at)})"
        )
    if promote_after and not tiers:
        raise InvalidRequestError("promote_after is for competitions with tiers (give --tier NAME=BOSSBOT)")
    if relegate_after and not tiers:
        raise InvalidRequestError("relegate_after is for competitions with tiers (give --tier NAME=BOSSBOT)")
    if not 0 <= relegate_after <= bounds.RELEGATE_AFTER.high:
        raise InvalidRequestError(f"relegate_after must be from 0 (never) to {bounds.RELEGATE_AFTER.high}")
    seats = players or default_players(game)
    check_game_setup(game, seats, None)
    settings = check_finals(finals or {}, seats)
    with db.transaction() as session:
        if session.exec(select(Competition.id).where(Competition.name == name)).first() is not None:
            raise ConflictError(f"a competition named {name!r} already exists")
        competition = Competition(
            name=name,
            game=game,
            players=seats,
            opens_at=opens_at,
            closes_at=closes_at,
            finals_at=finals_at,
            finals=settings,
            tiers=competition_tiers.check_tiers(session, game, tiers),
            promote_after=competition_tiers.check_promote_after(promote_after),
            relegate_after=relegate_after,
        )
        session.add(competition)
        session.flush()
        starts = format_time(finals_at or closes_at)
        record(
            session, competition, "create", "create", None,
            f"created; closes {format_time(closes_at)}; finals start {starts}", now,
        )  # fmt: skip
        return competition_info(session, competition)


def default_players(game: str) -> int:
    """Two seats where the game allows it (a bracket needs them), else the game's fewest."""
    try:
        return max(2, get_game(game).spec.min_players)
    except UnknownGameError as error:
        raise InvalidRequestError(str(error)) from None


def enter_competition(db: Database, name: str, bot_name: str, now: datetime) -> CompetitionInfo:
    """Enter a bot; refused once the deadline has passed (the caller's rights are checked by the
    service: an author enters their own bots, the admin any)."""
    with db.transaction() as session:
        competition = by_name(session, name, lock=True)
        refuse_after_deadline(competition, now, "enter")
        if competition_tiers.is_boss(competition, bot_name):
            raise InvalidRequestError(
                f"bot {bot_name} is a boss in competition {name!r}: it plays, never enters"
            )
        (bot,) = active_bots_for(session, competition.game, [bot_name])
        assert competition.id is not None and bot.id is not None
        if session.get(CompetitionEntry, (competition.id, bot.id)) is not None:
            raise ConflictError(f"bot {bot_name} is in competition {name!r} already")
        positions = session.exec(select(CompetitionEntry.position).where(
            CompetitionEntry.competition_id == competition.id)).all()  # fmt: skip
        position = max(positions, default=-1) + 1  # after any who left: order of entry stays unique
        session.add(
            CompetitionEntry(competition_id=competition.id, bot_id=bot.id, position=position, entered_at=now)
        )
        record(session, competition, f"enter:{bot.id}", "enter", bot.id, f"{bot_name} entered", now)
    ensure_open_league(db, name)
    return get_competition(db, name)


def leave_competition(db: Database, name: str, bot_name: str, now: datetime) -> CompetitionInfo:
    """Take an entry out before the deadline (its author's or the admin's call): it leaves the
    competition and its open ladder (or tier ladder); its matches there already in play finish
    and count, its waiting ones are cancelled. Refused once the deadline has passed."""
    with db.transaction() as session:
        competition = by_name(session, name, lock=True)
        refuse_after_deadline(competition, now, "leave")
        bot, entry = _entry(session, competition, bot_name)
        league_names = [
            league.name
            for league in session.exec(select(League).where(col(League.name).startswith(f"{name}.")))
            if league.name == f"{name}.open" or competition_tiers.is_tier_league(name, league.name)
        ]
        session.delete(entry)
        record(session, competition, f"leave:{bot.id}:{now.timestamp()}", "leave", bot.id,
               f"{bot_name} left before the deadline", now)  # fmt: skip
    for league_name in league_names:
        with contextlib.suppress(NotFoundError):  # not a member there (another tier, or left already)
            membership.leave_league(db, league_name, bot_name)
    return get_competition(db, name)


def ensure_open_league(db: Database, name: str) -> str | None:
    """Make the open ladder league once the entries can fill a match, and put every entry in it
    (each in its own transaction: a step interrupted is finished by the next call). Returns its
    name, or None while there are too few entries."""
    with db.read() as session:
        competition = by_name(session, name)
        if competition.phase != CompetitionPhase.OPEN:
            return None
        tiered = bool(competition.tiers)
    if tiered:
        to_run, _ = competition_tiers.ensure_tier_leagues(db, name)
        return to_run[0] if to_run else None
    with db.read() as session:
        entrants = session.exec(
            select(Bot.name, Bot.id)
            .join(CompetitionEntry, col(CompetitionEntry.bot_id) == col(Bot.id))
            .where(
                CompetitionEntry.competition_id == competition.id,
                col(Bot.enabled),
                col(Bot.suspended_reason).is_(None),
                col(Bot.retired_at).is_(None),
            )  # a bot that may not play now is left out of the open ladder (not of the competition)
            .order_by(col(CompetitionEntry.position))
        ).all()
        league_name = f"{name}.open"
        league = session.exec(select(League).where(League.name == league_name)).first()
        present = (
            set(
                session.exec(
                    select(LeagueBot.bot_id).where(
                        LeagueBot.league_id == league.id, col(LeagueBot.left_at).is_(None)
                    )
                ).all()
            )
            if league is not None
            else set()
        )
    if league is None:
        if len(entrants) < competition.players:
            return None
        leagues.create_league(
            db,
            league_name,
            competition.game,
            [bot for bot, _ in entrants],
            format="ladder",
            players=competition.players,
        )
        present = {bot_id for _, bot_id in entrants if bot_id is not None}
    for bot, bot_id in entrants:
        if bot_id not in present:
            with contextlib.suppress(ConflictError):  # joined by a call running beside this one
                membership.join_league(db, league_name, bot)
    if competition.league_id is None:
        league_id = leagues.get_league(db, league_name).id
        with db.transaction() as session:
            row = by_name(session, name, lock=True)
            row.league_id = league_id
            session.add(row)
    return league_name


def select_version(db: Database, name: str, bot_name: str, number: int, now: datetime) -> CompetitionInfo:
    """Choose the version an entry plays its finals with (0: the one active at the deadline)."""
    with db.transaction() as session:
        competition = by_name(session, name, lock=True)
        refuse_after_deadline(competition, now, "select a version")
        bot, entry = _entry(session, competition, bot_name)
        if number:
            version = session.exec(
                select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.number == number)
            ).first()
            if version is None:
                raise NotFoundError(f"bot {bot_name} has no version {number}")
            if version.status not in (VersionStatus.ACTIVE, VersionStatus.RETIRED):
                raise InvalidRequestError(
                    f"{bot_name} v{number} is {version.status}: "
                    "only a version that passed validation and played may be selected"
                )
        entry.selected_version = number or None
        session.add(entry)
        shown = f"v{number}" if number else "the version active at the deadline"
        key = f"select:{bot.id}:{now.timestamp()}"
        record(session, competition, key, "select", bot.id, f"{bot_name}: its author selected {shown}", now)
        session.flush()
        return competition_info(session, competition)


def list_competitions(
    db: Database, limit: int | None = None, after_id: int | None = None
) -> list[CompetitionInfo]:
    """Competitions, oldest first: at most ``limit``, after competition ``after_id`` when given."""
    with db.read() as session:
        query = select(Competition).order_by(col(Competition.id)).limit(limit)
        if after_id is not None:
            query = query.where(col(Competition.id) > after_id)
        rows = session.exec(query).all()
        return [competition_info(session, row, details=False) for row in rows]


def competition_info(session: Session, competition: Competition, details: bool = True) -> CompetitionInfo:
    assert competition.id is not None
    league = session.get(League, competition.league_id) if competition.league_id is not None else None
    winner = session.get(Bot, competition.winner_bot_id) if competition.winner_bot_id is not None else None
    entries: list[EntryInfo] = []
    decisions: list[DecisionInfo] = []
    if details:
        rows = session.exec(
            select(CompetitionEntry, Bot)
            .join(Bot, col(Bot.id) == col(CompetitionEntry.bot_id))
            .where(CompetitionEntry.competition_id == competition.id)
            .order_by(col(CompetitionEntry.position))
        ).all()
        authors = {a.id: a.name for a in session.exec(select(Author)).all()}
        tier_names = [tier["name"] for tier in competition.tiers]
        entries = [
            EntryInfo(
                bot.name, authors.get(bot.author_id) if bot.author_id is not None else None,
                bot.active_version, entry.selected_version, entry.frozen_version, entry.seed,
                entry.out_at_stage, tier_names[entry.tier] if tier_names else None,
            )
            for entry, bot in rows
        ]  # fmt: skip
        decided = session.exec(
            select(CompetitionDecision)
            .where(CompetitionDecision.competition_id == competition.id)
            .order_by(col(CompetitionDecision.id))
        ).all()
        named = {d.bot_id for d in decided if d.bot_id is not None}  # an entry that left, too
        names = {bot.id: bot.name for bot in session.exec(select(Bot).where(col(Bot.id).in_(named)))}
        decisions = [
            DecisionInfo(
                d.kind, names.get(d.bot_id) if d.bot_id is not None else None, d.stage, d.reason, d.decided_at
            )
            for d in decided
        ]
    return CompetitionInfo(
        name=competition.name,
        game=competition.game,
        players=competition.players,
        opens_at=competition.opens_at,
        closes_at=competition.closes_at,
        finals_at=competition.finals_at or competition.closes_at,
        phase=competition.phase,
        finals=dict(competition.finals),
        open_league=league.name if league is not None else None,
        stage=competition.stage,
        winner=winner.name if winner is not None else None,
        entries=tuple(entries),
        decisions=tuple(decisions),
        id=competition.id,
        tiers=tuple(
            {**tier, "league": competition_tiers.tier_league_name(competition.name, index)}
            for index, tier in enumerate(competition.tiers)
        ),
        promote_after=competition.promote_after if competition.tiers else 0,
        relegate_after=competition.relegate_after,
    )


def get_competition(db: Database, name: str) -> CompetitionInfo:
    with db.read() as session:
        competition = by_name(session, name)
        info = competition_info(session, competition)
        standings, stages = standings_and_stages(session, competition)
        rounds = swiss_rounds(session, competition) if competition.finals["format"] == "swiss" else ()
        bracket = bracket_meetings(session, competition)
    shown = {"standings": standings, "stages": stages, "swiss_rounds": rounds, "bracket": bracket}
    return CompetitionInfo(**{**info.__dict__, **shown})


def _entry(session: Session, competition: Competition, bot_name: str) -> tuple[Bot, CompetitionEntry]:
    bot = session.exec(select(Bot).where(Bot.name == bot_name)).first()
    entry = session.get(CompetitionEntry, (competition.id, bot.id)) if bot is not None else None
    if bot is None or entry is None:
        raise NotFoundError(f"bot {bot_name} is not in competition {competition.name!r}")
    return bot, entry
