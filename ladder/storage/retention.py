"""Which versions keep their archive and built folder, and marking the others pruned.

Kept: every version ``versions_still_needed`` names (the active one, one on its way, one a match
still to be played seats), and the ``keep`` newest others of each bot. The rest are pruned: their
rows, build logs, validation and history stay, with ``pruned_at`` set; the server then removes
their files (``server/building/retention.py``), except a file another kept version shares. Their
trial matches go in the same transaction, and kept versions' beyond a bound (``trial_retention``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlmodel import Session, col, select

from kingmaker.ladder.storage import trial_retention
from kingmaker.ladder.storage.models import (
    Author,
    Bot,
    BotVersion,
    Competition,
    CompetitionEntry,
    CompetitionPhase,
    Match,
    MatchSeat,
    MatchStatus,
    VersionStatus,
    utc_now,
)

DEFAULT_KEEP = 3
"""Versions kept beside the needed ones, per bot (the newest)."""
ON_THEIR_WAY = (VersionStatus.QUEUED, VersionStatus.BUILDING, VersionStatus.VALIDATING, VersionStatus.TESTING)

VersionKey = tuple[int, int]
"""(bot id, version number)."""


@dataclass(frozen=True)
class PrunedFiles:
    """What a prune marked, and which of their files no kept version uses any more."""

    versions: list[tuple[str, int, int]]
    """(bot name, number, bytes freed by it) per pruned version."""
    archives: set[str]
    """Archive hashes to remove from the blob store."""
    builds: set[str]
    """Built folders' hashes to remove from the build store."""
    trial_matches: int = 0
    """How many trial matches were dropped (``trial_retention``)."""


def versions_still_needed(session: Session, bot_ids: Iterable[int] | None = None) -> set[VersionKey]:
    """Versions whose files must stay: each bot's active version, versions still on their way
    (queued, building, validating, testing), and versions seated in a match not yet played to its
    end (a league's or an author's), and a competition's selected and frozen versions until the
    competition is final. A duel, the server's or an A/B gate's, plays active and testing
    versions only, kept here already."""
    wanted = list(bot_ids) if bot_ids is not None else None
    needed: set[VersionKey] = set()
    bots = select(Bot.id, Bot.active_version).where(col(Bot.active_version).is_not(None))
    on_way = select(BotVersion.bot_id, BotVersion.number).where(col(BotVersion.status).in_(ON_THEIR_WAY))
    seated = (
        select(MatchSeat.bot_id, MatchSeat.version)
        .join(Match, col(Match.id) == col(MatchSeat.match_id))
        .where(
            col(Match.status).in_([MatchStatus.SCHEDULED, MatchStatus.RUNNING]),
            col(MatchSeat.version).is_not(None),
        )
    )
    entries = select(Competition.id, CompetitionEntry.bot_id, CompetitionEntry.selected_version,
                     CompetitionEntry.frozen_version).join(
        Competition, col(Competition.id) == col(CompetitionEntry.competition_id)
    ).where(Competition.phase != CompetitionPhase.FINAL)  # fmt: skip
    if wanted is not None:
        bots = bots.where(col(Bot.id).in_(wanted))
        on_way = on_way.where(col(BotVersion.bot_id).in_(wanted))
        seated = seated.where(col(MatchSeat.bot_id).in_(wanted))
        entries = entries.where(col(CompetitionEntry.bot_id).in_(wanted))
    for _, entered, selected, frozen in session.exec(entries).all():
        needed |= {(int(entered), int(number)) for number in (selected, frozen) if number is not None}
    for query in (bots, on_way, seated):
        for bot_id, number in session.exec(query).all():
            if bot_id is not None and number is not None:
                needed.add((int(bot_id), int(number)))
    return needed


def prune(
    session: Session,
    keep: int = DEFAULT_KEEP,
    bot_name: str | None = None,
    author_id: int | None = None,
    dry_run: bool = False,
) -> PrunedFiles:
    """Mark pruned the versions retention does not keep, of one bot, of one author's bots, or
    of every bot (inside the caller's transaction); which files may go."""
    bots_query = select(Bot)
    if bot_name is not None:
        bots_query = bots_query.where(Bot.name == bot_name)
    if author_id is not None:
        bots_query = bots_query.where(Bot.author_id == author_id)
    bots = {bot.id: bot for bot in session.exec(bots_query).all() if bot.id is not None}
    needed = versions_still_needed(session, bots)
    chosen: list[BotVersion] = []
    gone: set[VersionKey] = set()
    for bot_id in bots:
        rows = session.exec(
            select(BotVersion).where(BotVersion.bot_id == bot_id).order_by(col(BotVersion.number).desc())
        ).all()
        others = [row for row in rows if (bot_id, row.number) not in needed]
        gone |= {(bot_id, row.number) for row in others[keep:]}
        chosen.extend(
            row for row in others[keep:] if row.pruned_at is None and (row.archive_hash or row.build_hash)
        )
    trials = trial_retention.trials_to_drop(session, bots, gone)
    if not dry_run:
        trial_retention.drop_trials(session, trials)
    if not chosen:
        return PrunedFiles([], set(), set(), len(trials))
    chosen_ids = {row.id for row in chosen}
    kept = session.exec(
        select(BotVersion.id, BotVersion.archive_hash, BotVersion.build_hash).where(
            col(BotVersion.pruned_at).is_(None)
        )
    ).all()
    kept_archives = {digest for row_id, digest, _ in kept if digest and row_id not in chosen_ids}
    kept_builds = {digest for row_id, _, digest in kept if digest and row_id not in chosen_ids}
    archives: set[str] = set()
    builds: set[str] = set()
    versions: list[tuple[str, int, int]] = []
    now = utc_now()
    for row in chosen:
        freed = 0
        if row.archive_hash and row.archive_hash not in kept_archives and row.archive_hash not in archives:
            archives.add(row.archive_hash)
            freed += row.archive_bytes or 0
        if row.build_hash and row.build_hash not in kept_builds and row.build_hash not in builds:
            builds.add(row.build_hash)
            freed += row.build_bytes or 0
        versions.append((bots[row.bot_id].name, row.number, freed))
        if not dry_run:
            row.pruned_at = now
            session.add(row)
    return PrunedFiles(sorted(versions), archives, builds, len(trials))


def author_id_of(session: Session, name: str) -> int | None:
    author = session.exec(select(Author).where(Author.name == name)).first()
    return author.id if author is not None else None
