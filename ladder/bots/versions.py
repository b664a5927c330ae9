"""A bot's versions: each submission (or command the admin registers) is version N of the bot.

A version moves on: (``queued`` while its author's other builds run) ``building`` ->
``validating`` -> ``active`` (or ``build_failed``, ``rejected``);
an active version becomes ``retired`` when another one is activated, and a rollback may make a
retired version active again (it built and passed its validation once). Only one version of a bot
is active: the one that plays (``Bot.active_version``, whose command ``Bot.command`` holds).

When a new version starts to play, the bot's ratings follow its games' ``LadderPolicy``: kept,
sigma reset (the default: the ladder learns the new version quickly from where the old one
stood), or reset as for a new bot. A bot that was suspended is reinstated: its new version passed
validation. A failed or rejected version changes nothing: the previous one plays on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, func, select

from kingmaker.ladder.bots import bots as ladder_bots
from kingmaker.ladder.bots.author_bounds import check_submission_bounds
from kingmaker.ladder.bots.authors import check_quota
from kingmaker.ladder.bots.notices import notify_about_bot
from kingmaker.ladder.bots.version_activation import (
    DEFAULT_POLICY,
    activate_version,
    next_version_number,
)
from kingmaker.ladder.errors import ConflictError, ForbiddenError, InvalidRequestError, NotFoundError
from kingmaker.ladder.names import check_name
from kingmaker.ladder.records import BotInfo
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import (
    Author,
    Bot,
    BotVersion,
    LadderPolicy,
    NoticeKind,
    VersionStatus,
    utc_now,
)

POLICIES = ("keep", "reset_sigma", "reset")
WAITING_FOR_FIRST_VERSION = "no version of it has passed its build and validation yet"
"""The suspension of a bot created by its first submission, lifted when a version is activated."""
FINAL = (VersionStatus.BUILD_FAILED, VersionStatus.REJECTED, VersionStatus.ACTIVE, VersionStatus.RETIRED)
"""Statuses a version does not leave by itself (``WatchVersion`` ends at them)."""


@dataclass(frozen=True)
class VersionRecord:
    bot: str
    bot_id: int
    number: int
    status: str
    status_reason: str
    source: str
    archive_hash: str | None
    build_hash: str | None
    command: tuple[str, ...]
    working_dir: str | None
    protocol: str
    manifest: dict[str, Any]
    build_log: str
    validation: list[Any]
    submitted_by: str
    """The author's name; empty for the admin."""
    submitted_by_id: int | None
    created_at: datetime
    built_at: datetime | None
    activated_at: datetime | None
    ab: bool
    queue_place: int = 0
    """A queued version's place among its author's builds waiting to start (1: next)."""
    pruned: bool = False
    """Retention removed its archive and built folder."""

    @property
    def final(self) -> bool:
        return self.status in FINAL


def start_submission(
    db: Database,
    bot_name: str,
    games: Sequence[str],
    archive_hash: str,
    author_id: int | None = None,
    ab: bool = False,
    archive_bytes: int | None = None,
) -> VersionRecord:
    """A new version of ``bot_name``, ``building``, from a stored archive. The first submission of
    a name creates the bot (it waits, suspended, for a version to pass); later, given games
    replace the bot's games only while no version plays: otherwise the bot's games change when
    the new version becomes active (``server/new_versions``), never under the one playing."""
    with db.transaction() as session:
        bot = _submitted_to(session, bot_name, author_id)
        if author_id is not None:
            check_submission_bounds(session, author_id, archive_bytes or 0)
        if bot is None:
            if not games:
                raise InvalidRequestError(f"a new bot needs its games: submit {bot_name} with -g GAME")
            check_name("bot", bot_name)
            bot = ladder_bots.new_bot(session, bot_name, games, author_id=author_id)
            bot.suspended_reason = WAITING_FOR_FIRST_VERSION
            bot.suspended_at = utc_now()
            session.add(bot)
        else:
            if bot.retired_at is not None:
                raise InvalidRequestError(f"bot {bot_name!r} was removed; submit under a new name")
            if bot.command is None and _latest(session, bot) is None:
                raise InvalidRequestError(f"bot {bot_name!r} is a remote bot: it connects itself")
            if games and bot.active_version is None:
                ladder_bots.set_games(session, bot, games)
        assert bot.id is not None
        version = BotVersion(
            bot_id=bot.id,
            number=next_version_number(session, bot.id),
            status=VersionStatus.BUILDING,
            source="submission",
            archive_hash=archive_hash,
            submitted_by=author_id,
            ab=ab,
            archive_bytes=archive_bytes,
        )
        session.add(version)
        session.flush()
        return _record(session, bot, version)


def check_submitter(db: Database, bot_name: str, author_id: int | None, incoming_bytes: int = 0) -> None:
    """Before any byte of a submission is kept: ``ForbiddenError`` when the bot is another's
    (``author_id`` None: the admin, who may submit to any bot), ``InvalidRequestError`` when a new
    bot would take the author past their quota, or the submission past a bound of theirs
    (``author_bounds``: submissions per hour, bytes stored)."""
    with db.read() as session:
        if _submitted_to(session, bot_name, author_id) is None and author_id is not None:
            check_quota(session, author_id)
        if author_id is not None:
            check_submission_bounds(session, author_id, incoming_bytes)


def _submitted_to(session: Session, bot_name: str, author_id: int | None) -> Bot | None:
    """The bot a submission goes to (None: a new one), if the submitter may submit to it."""
    bot = session.exec(select(Bot).where(Bot.name == bot_name)).first()
    if bot is not None and author_id is not None and bot.author_id != author_id:
        raise ForbiddenError(f"{bot_name} is not your bot: only its owner or the admin may submit to it")
    return bot


def mark_built(
    db: Database,
    bot_name: str,
    number: int,
    build_hash: str,
    command: Sequence[str],
    protocol: str,
    manifest: dict[str, Any],
    log: str,
    build_bytes: int | None = None,
) -> VersionRecord:
    """The build succeeded: the version is ``validating``."""
    with db.transaction() as session:
        bot, version = _find(session, bot_name, number)
        version.status, version.build_bytes = VersionStatus.VALIDATING, build_bytes
        version.build_hash, version.command, version.protocol = build_hash, list(command), protocol
        version.manifest, version.build_log, version.built_at = dict(manifest), log, utc_now()
        session.add(version)
        return _record(session, bot, version)


def mark_queued(db: Database, bot_name: str, number: int, queued: bool) -> VersionRecord:
    """The version waits for one of its author's builds to finish (``queued``), or its build
    starts now."""
    with db.transaction() as session:
        bot, version = _find(session, bot_name, number)
        version.status = VersionStatus.QUEUED if queued else VersionStatus.BUILDING
        session.add(version)
        return _record(session, bot, version)


def mark_failed(
    db: Database,
    bot_name: str,
    number: int,
    status: str,
    reason: str,
    log: str | None = None,
    validation: list[Any] | None = None,
    manifest: dict[str, Any] | None = None,
) -> VersionRecord:
    """The build failed or the validation rejected it; the previous version plays on."""
    if status not in (VersionStatus.BUILD_FAILED, VersionStatus.REJECTED):
        raise ValueError(f"not a failure: {status}")
    with db.transaction() as session:
        bot, version = _find(session, bot_name, number)
        _tell_failure(session, bot, version, status, reason)
        version.status, version.status_reason = status, reason
        if log is not None:
            version.build_log = log
        if validation is not None:
            version.validation = list(validation)
        if manifest is not None:
            version.manifest = dict(manifest)
        session.add(version)
        return _record(session, bot, version)


def mark_testing(db: Database, bot_name: str, number: int, validation: list[Any]) -> VersionRecord:
    """Validated; now playing its A/B duel against the active version (``submit --ab``)."""
    with db.transaction() as session:
        bot, version = _find(session, bot_name, number)
        version.status, version.validation = VersionStatus.TESTING, list(validation)
        session.add(version)
        return _record(session, bot, version)


def record_ab(db: Database, bot_name: str, number: int, progress: dict[str, Any]) -> list[Any]:
    """Keep where the version's A/B duel stands in one game (``progress["game"]``), as the last
    entry of its validation (replacing that game's entry before), so its author can follow every
    game; the validation as it is now."""
    with db.transaction() as session:
        _, version = _find(session, bot_name, number)
        game = progress.get("game")
        kept = [
            entry
            for entry in version.validation
            if not (
                isinstance(entry, dict)
                and isinstance(entry.get("ab"), dict)
                and entry["ab"].get("game") == game
            )
        ]
        version.validation = [*kept, {"ab": dict(progress)}]
        session.add(version)
        return list(version.validation)


def activate(db: Database, bot_name: str, number: int, validation: list[Any] | None = None) -> VersionRecord:
    """A validated version starts to play (the previous active one is retired), unless a newer
    version already plays (it is then retired at once) or the bot was removed."""
    with db.transaction() as session:
        bot, version = _find(session, bot_name, number)
        if version.status != VersionStatus.VALIDATING and version.status != VersionStatus.TESTING:
            raise ConflictError(f"version {number} of {bot_name} is {version.status}, not validated")
        duelled = version.status == VersionStatus.TESTING
        if validation is not None:
            version.validation = list(validation)
        if bot.retired_at is not None:
            version.status, version.status_reason = VersionStatus.REJECTED, "the bot was removed meanwhile"
        elif bot.active_version is not None and bot.active_version > number:
            # Two submissions built at once: the newer one plays; this one may be rolled back to.
            version.status = VersionStatus.RETIRED
            version.status_reason = f"version {bot.active_version}, newer, was activated first"
            version.activated_at = utc_now()
        else:
            activate_version(session, bot, version)
        if duelled and version.status != VersionStatus.REJECTED:
            plays = (
                "plays now" if bot.active_version == number else f"waits: version {bot.active_version} plays"
            )
            summary = f"version {number} of {bot.name} passed its A/B duel and {plays}"
            notify_about_bot(session, bot, NoticeKind.AB_VERDICT, summary, version=number)
        session.add(version)
        return _record(session, bot, version)


def _tell_failure(session: Session, bot: Bot, version: BotVersion, status: str, reason: str) -> None:
    """The author's notice of a failed build, validation or A/B duel (the reason: theirs alone)."""
    number, played = version.number, "the version that played plays on"
    if status == VersionStatus.BUILD_FAILED:
        kind, summary = NoticeKind.BUILD_FAILED, f"version {number} of {bot.name} did not build; {played}"
    elif version.status == VersionStatus.TESTING:
        kind, summary = (
            NoticeKind.AB_VERDICT,
            f"version {number} of {bot.name} did not pass its A/B duel; {played}",
        )
    else:
        kind, summary = (
            NoticeKind.VALIDATION_FAILED,
            f"version {number} of {bot.name} failed validation; {played}",
        )
    notify_about_bot(session, bot, kind, summary, detail=reason, version=number)


def rollback(db: Database, bot_name: str, number: int) -> BotInfo:
    """Make an earlier version that built and passed validation the one that plays again."""
    with db.transaction() as session:
        bot, version = _find(session, bot_name, number)
        if bot.retired_at is not None:
            raise InvalidRequestError(f"bot {bot_name!r} was removed")
        if version.status == VersionStatus.ACTIVE:
            raise InvalidRequestError(f"version {number} of {bot_name} is already the one that plays")
        if version.status != VersionStatus.RETIRED:
            raise InvalidRequestError(
                f"version {number} of {bot_name} is {version.status}: only a version that played "
                "(built and validated) can be brought back"
            )
        check_kept(bot_name, version)
        activate_version(session, bot, version)
        return ladder_bots.bot_info(session, bot)


def check_kept(bot_name: str, version: BotVersion) -> None:
    """``InvalidRequestError`` if retention pruned this submitted version: it cannot run again."""
    if version.pruned_at is not None and version.source == "submission":
        raise InvalidRequestError(
            f"version {version.number} of {bot_name} was pruned (its archive and build are gone): "
            "submit it again"
        )


def get_version(db: Database, bot_name: str, number: int = 0) -> VersionRecord:
    """Version ``number`` of the bot (0: its newest)."""
    with db.read() as session:
        bot = ladder_bots.find_bot(session, bot_name)
        if number == 0:
            latest = _latest(session, bot)
            if latest is None:
                raise NotFoundError(f"bot {bot_name!r} has no versions")
            return _record(session, bot, latest)
        return _record(session, *_find(session, bot_name, number))


def list_versions(
    db: Database, bot_name: str, limit: int = 50, before: int | None = None
) -> list[VersionRecord]:
    """The bot's versions, newest first, numbered below ``before`` when given (the next page)."""
    with db.read() as session:
        bot = ladder_bots.find_bot(session, bot_name)
        query = select(BotVersion).where(BotVersion.bot_id == bot.id)
        if before is not None:
            query = query.where(col(BotVersion.number) < before)
        rows = session.exec(query.order_by(col(BotVersion.number).desc()).limit(limit)).all()
        return [_record(session, bot, row) for row in rows]


def latest_versions(db: Database, bot_ids: Sequence[int]) -> dict[int, tuple[int, str]]:
    """Each bot's newest version: (number, status)."""
    with db.read() as session:
        newest = (
            select(BotVersion.bot_id, func.max(BotVersion.number).label("number"))
            .where(col(BotVersion.bot_id).in_(list(bot_ids)))
            .group_by(col(BotVersion.bot_id))
            .subquery()
        )
        rows = session.exec(
            select(BotVersion.bot_id, BotVersion.number, BotVersion.status).join(
                newest,
                (col(BotVersion.bot_id) == newest.c.bot_id) & (col(BotVersion.number) == newest.c.number),
            )
        ).all()
    return {bot_id: (number, status) for bot_id, number, status in rows}


def fail_interrupted(db: Database) -> int:
    """After a stop: versions left building or validating failed (nothing would finish them)."""
    with db.transaction() as session:
        stranded = session.exec(
            select(BotVersion).where(
                col(BotVersion.status).in_(
                    [
                        VersionStatus.QUEUED,
                        VersionStatus.BUILDING,
                        VersionStatus.VALIDATING,
                        VersionStatus.TESTING,
                    ]
                )
            )
        ).all()
        for version in stranded:
            version.status = VersionStatus.BUILD_FAILED
            version.status_reason = (
                "the server stopped before its build and validation finished: submit it again"
            )
            session.add(version)
        return len(stranded)


def ladder_policy(db: Database, game: str) -> str:
    with db.read() as session:
        row = session.get(LadderPolicy, game)
        return row.new_version if row is not None else DEFAULT_POLICY


def set_ladder_policy(db: Database, game: str, new_version: str) -> str:
    if new_version not in POLICIES:
        raise InvalidRequestError(f"unknown policy {new_version!r}: use {', '.join(POLICIES)}")
    with db.transaction() as session:
        row = session.get(LadderPolicy, game) or LadderPolicy(game=game)
        row.new_version = new_version
        session.add(row)
    return new_version


def _latest(session: Session, bot: Bot) -> BotVersion | None:
    return session.exec(
        select(BotVersion).where(BotVersion.bot_id == bot.id).order_by(col(BotVersion.number).desc())
    ).first()


def _find(session: Session, bot_name: str, number: int) -> tuple[Bot, BotVersion]:
    bot = ladder_bots.find_bot(session, bot_name)
    version = session.exec(
        select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.number == number)
    ).first()
    if version is None:
        raise NotFoundError(f"bot {bot_name!r} has no version {number}")
    return bot, version


def _record(session: Session, bot: Bot, version: BotVersion) -> VersionRecord:
    assert bot.id is not None
    author = session.get(Author, version.submitted_by) if version.submitted_by is not None else None
    return VersionRecord(
        bot=bot.name,
        bot_id=bot.id,
        number=version.number,
        status=version.status,
        status_reason=version.status_reason or "",
        source=version.source,
        archive_hash=version.archive_hash,
        build_hash=version.build_hash,
        command=tuple(version.command or ()),
        working_dir=version.working_dir,
        protocol=version.protocol,
        manifest=dict(version.manifest),
        build_log=version.build_log or "",
        validation=list(version.validation),
        submitted_by=author.name if author is not None else "",
        submitted_by_id=version.submitted_by,
        created_at=version.created_at,
        built_at=version.built_at,
        activated_at=version.activated_at,
        ab=version.ab,
        queue_place=_queue_place(session, version) if version.status == VersionStatus.QUEUED else 0,
        pruned=version.pruned_at is not None,
    )


def _queue_place(session: Session, version: BotVersion) -> int:
    """Its place among its submitter's queued versions (they start in the order submitted)."""
    ahead = session.exec(
        select(func.count())
        .select_from(BotVersion)
        .where(
            BotVersion.status == VersionStatus.QUEUED,
            BotVersion.submitted_by == version.submitted_by,
            col(BotVersion.id) <= version.id,
        )
    ).one()
    return int(ahead)
