"""A version starting to play: the previous one retired, the ratings moved as the game's
``LadderPolicy`` says, a suspended bot level with the field again, the bot's row pointed at it.

Both ``bots`` (the admin registers or edits a command: a new version, active at once) and
``versions`` (a submission passed its build and validation, or a rollback) activate versions, so
this lives below both of them."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, func, select

from kingmaker.ladder.pairing.league_pool import level_with_the_field, note_ratings
from kingmaker.ladder.ratings.ratings import conservative, settings_for
from kingmaker.ladder.storage.models import Bot, BotVersion, LadderPolicy, Rating, VersionStatus, utc_now

DEFAULT_POLICY = "reset_sigma"


def record_command_version(
    session: Session, bot: Bot, command: Sequence[str], working_dir: str | None
) -> BotVersion:
    """The admin registered or changed a managed bot's command: that is a new version, active now
    (inside the caller's transaction; the ratings follow the policy when it replaces another). The
    bot's row takes the command when the version is activated, after its ratings moved: the order
    in which a result locks them."""
    assert bot.id is not None
    version = BotVersion(
        bot_id=bot.id,
        number=next_version_number(session, bot.id),
        status=VersionStatus.BUILDING,
        source="command",
        command=list(command),
        working_dir=working_dir,
        built_at=utc_now(),
    )
    session.add(version)
    session.flush()
    activate_version(session, bot, version)
    return version


def activate_version(session: Session, bot: Bot, version: BotVersion) -> None:
    assert bot.id is not None
    previous = bot.active_version
    if previous is not None and previous != version.number:
        old = session.exec(
            select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.number == previous)
        ).first()
        if old is not None:
            old.status = VersionStatus.RETIRED
            old.status_reason = f"replaced by version {version.number}"
            session.add(old)
        _apply_policy(session, bot.id)
    if bot.suspended_reason is not None:
        # It plays again (below): level with each ladder's field. After its ratings, before its
        # row: the order in which a result locks them (ratings, ladder rows, the bot).
        level_with_the_field(session, bot.id)
    version.status, version.status_reason, version.activated_at = VersionStatus.ACTIVE, None, utc_now()
    session.add(version)
    bot.active_version = version.number
    bot.command, bot.working_dir = list(version.command or []), version.working_dir
    if bot.suspended_reason is not None:  # its new version passed validation: it plays again
        bot.suspended_reason = bot.suspended_stderr = None
        bot.suspended_at = None
        bot.faults_forgiven_at = utc_now()  # the old version's faults are not the new one's
    session.add(bot)
    session.flush()


def _apply_policy(session: Session, bot_id: int) -> None:
    """Move the bot's ratings as each game's policy says, for its new version."""
    for row in session.exec(select(Rating).where(Rating.bot_id == bot_id)).all():
        policy = session.get(LadderPolicy, row.game)
        chosen = policy.new_version if policy is not None else DEFAULT_POLICY
        start = settings_for(row.game)
        if chosen == "keep":
            continue
        if chosen == "reset":
            row.mu = start.mu
        row.sigma = start.sigma
        row.conservative = conservative(row.mu, row.sigma)
        row.updated_at = utc_now()
        session.add(row)
        note_ratings(session, row.game, [(bot_id, row.mu, row.sigma)])  # what the matchmaker reads


def next_version_number(session: Session, bot_id: int) -> int:
    highest = session.exec(select(func.max(BotVersion.number)).where(BotVersion.bot_id == bot_id)).one()
    return int(highest or 0) + 1
