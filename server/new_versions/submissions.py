"""A submitted version's way to the ladder: build, validate, activate, in the background.

``Submit`` stores the archive and answers at once with the new version ("building"); this
pipeline then builds it in the jail (``builds``), validates it against random bots
(``version_checks``) and, when it passes (and, with ``submit --ab``, once it has shown in an SPRT
duel against the active version that it is not weaker: ``ab_gate``),
makes it the version that plays (``ladder.versions.activate``). Each step is written to the
database, and watchers (``WatchVersion``) are woken at every change. A version that fails at any
step leaves the previous one playing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kingmaker.ladder.bots import author_bounds, versions
from kingmaker.ladder.bots import bots as ladder_bots
from kingmaker.ladder.bots.versions import VersionRecord
from kingmaker.ladder.errors import BoundReachedError
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import VersionStatus
from kingmaker.server.building.build_progress import LiveBuildLogs
from kingmaker.server.building.build_store import BlobStore, BuildStore
from kingmaker.server.building.builds import BuildResult, build_archive
from kingmaker.server.building.retention import Retention, folder_bytes
from kingmaker.server.building.submission_archive import sniff_format
from kingmaker.server.building.submission_limits import SubmissionLimits
from kingmaker.server.jail.sandbox import SandboxPolicy
from kingmaker.server.new_versions.ab_duels import duel_games
from kingmaker.server.new_versions.build_queue import BuildQueue, BuildTicket
from kingmaker.server.new_versions.trial_keeping import keeper
from kingmaker.server.new_versions.version_checks import validate
from kingmaker.server.scheduling.duel_room import SeedRoom
from kingmaker.server.scheduling.rated import entrants_of
from kingmaker.server.seats.admission import Admission
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant, Roster

log = logging.getLogger("kingmaker.server")

Retire = Callable[[set[int]], Awaitable[None]]
"""Stops a bot's warm processes wherever they run (the executor's ``retire``)."""


RETENTION_EVERY_S = 3600.0
"""How often retention goes over every bot (besides each bot's prune after each of its versions)."""


@dataclass
class SubmissionPipeline:
    db: Database
    roster: Roster
    blobs: BlobStore
    builds: BuildStore
    sandbox: SandboxPolicy
    control: TimeControl
    limits: SubmissionLimits
    retire: Retire
    temp_root: Path | None = None
    admission: Admission | None = None
    """The leagues' admission control: an A/B duel's games play side by side while it finds room."""

    def __post_init__(self) -> None:
        self.changed = asyncio.Condition()
        """Notified whenever a version moves on."""
        self._running: set[asyncio.Task[None]] = set()
        self.queue = BuildQueue()
        """Each author's builds at once; the rest wait, queued."""
        self.retention = Retention(self.db, self.blobs, self.builds, self.limits.keep_versions)
        self._pruning: asyncio.Task[None] | None = None
        self.live_logs = LiveBuildLogs()
        """What each build running now has printed so far (``WatchVersion`` streams it)."""

    async def start(self, version: VersionRecord, games: Sequence[str] = ()) -> VersionRecord:
        """Build, validate and activate this new version in the background: at once, or queued
        behind its author's other builds. The version as it is now (its status "queued" if so).
        ``games``: those the submission gave (else its manifest's, else the bot's): the bot plays
        them once this version is active, never before (the active version was validated for its
        own games only)."""
        author = version.submitted_by_id
        limit = 1
        if author is not None:
            bounds = await asyncio.to_thread(self._bounds_of, author)
            limit = bounds.builds_at_once
        ticket = self.queue.enter(author, limit)
        task = asyncio.create_task(
            self._run(version, tuple(games), ticket), name=f"version {version.bot}@{version.number}"
        )
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        if not ticket.waiting:
            return version
        place = list(self.queue.waiting.get(author or 0, ())).index(ticket) + 1
        return dataclasses.replace(version, status=VersionStatus.QUEUED, queue_place=place)

    def _bounds_of(self, author: int) -> author_bounds.AuthorBounds:
        with self.db.read() as session:
            return author_bounds.bounds_of(session, author)

    def _check_built_bytes(self, author: int, build_hash: str, size: int) -> None:
        with self.db.read() as session:
            author_bounds.check_built_bytes(session, author, build_hash, size)

    async def wait_for_change(self, seconds: float) -> None:
        async with self.changed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), seconds)

    async def idle(self) -> None:
        """Wait until every version started so far has finished its way (for tests)."""
        while self._running:
            await asyncio.gather(*list(self._running), return_exceptions=True)

    def prune_periodically(self, every_s: float = RETENTION_EVERY_S) -> None:
        """Retention over every bot now and then every ``every_s``: what needed a version (a
        league's matches, a build) may have let go of it since its bot's last prune."""

        async def pruning() -> None:
            while True:
                try:
                    await self.retention.prune()
                except Exception:  # the next round tries again
                    log.exception("pruning old versions failed")
                await asyncio.sleep(every_s)

        self._pruning = asyncio.create_task(pruning(), name="retention")

    async def close(self) -> None:
        tasks = list(self._running)
        if self._pruning is not None:
            tasks.append(self._pruning)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def notify(self) -> None:
        """Wake every watcher: a version moved on."""
        async with self.changed:
            self.changed.notify_all()

    async def _run(self, version: VersionRecord, games: tuple[str, ...], ticket: BuildTicket) -> None:
        try:
            await self._build_and_check(version, games, ticket)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a failure of the server's: say so on the version, never lose it
            log.exception("version %s of %s failed in the server", version.number, version.bot)
            reason = f"the server failed while building or validating it: {error}"
            await asyncio.to_thread(
                versions.mark_failed, self.db, version.bot, version.number, VersionStatus.BUILD_FAILED, reason
            )
        finally:
            self.queue.leave(ticket)
            await self.notify()
            await self._prune(version.bot)

    async def _prune(self, bot: str) -> None:
        """Retention, after each version's way: the bot's versions beyond those kept lose their files."""
        try:
            await self.retention.prune(bot=bot)
        except asyncio.CancelledError:
            raise
        except Exception:  # the next prune tries again; the version's own way is done
            log.exception("pruning the versions of %s failed", bot)

    async def _build_and_check(
        self, version: VersionRecord, games: tuple[str, ...], ticket: BuildTicket
    ) -> None:
        assert version.archive_hash is not None
        if ticket.waiting:
            await asyncio.to_thread(versions.mark_queued, self.db, version.bot, version.number, True)
            await self.notify()
            await ticket.granted
            await asyncio.to_thread(versions.mark_queued, self.db, version.bot, version.number, False)
            await self.notify()
        try:
            built = await self._build(version)
        finally:
            self.queue.leave(ticket)  # the next of this author's builds may start

        manifest = built.manifest.as_dict() if built.manifest is not None else {}
        if not built.ok or built.manifest is None or built.build_hash is None:
            await asyncio.to_thread(
                versions.mark_failed, self.db, version.bot, version.number, VersionStatus.BUILD_FAILED,
                built.reason, built.log, None, manifest,
            )  # fmt: skip
            return
        run = built.manifest
        wanted = list(games or run.games)
        bot = await asyncio.to_thread(ladder_bots.get_bot, self.db, version.bot)
        if wanted and bot.active_version is None and set(wanted) != set(bot.games):
            await asyncio.to_thread(_set_games, self.db, version.bot, wanted)  # nothing plays yet
        size = await asyncio.to_thread(folder_bytes, self.builds.path(built.build_hash))
        author = version.submitted_by_id
        if author is not None:  # (the admin's versions are not bounded)
            try:
                await asyncio.to_thread(self._check_built_bytes, author, built.build_hash, size)
            except BoundReachedError as error:
                await asyncio.to_thread(
                    versions.mark_failed, self.db, version.bot, version.number, VersionStatus.BUILD_FAILED,
                    str(error), built.log, None, manifest,
                )  # fmt: skip
                return
        async with self.retention.lock:  # not pruned between being kept and being recorded
            if not self.builds.has(built.build_hash):
                raise RuntimeError("its built folder was pruned as it was kept: submit it again")
            await asyncio.to_thread(
                versions.mark_built, self.db, version.bot, version.number, built.build_hash, run.run,
                run.protocol, manifest, built.log, size,
            )  # fmt: skip
        await self.notify()
        bot = await asyncio.to_thread(ladder_bots.get_bot, self.db, version.bot)
        plays = wanted or list(bot.games)
        # Its bot's id, so its processes are kept warm (per version) from match to match through
        # validation and the A/B duel, as on the ladder: not launched again for each match.
        entrant = Entrant(bot.name, bot.id, run.run, None, version.number, run.protocol, built.build_hash)
        keep = keeper(self.db, version.bot, version.number, "validation")
        checked = await validate(self.roster, entrant, plays, self.control, keep)
        if not checked.passed:
            await asyncio.to_thread(
                versions.mark_failed, self.db, version.bot, version.number, VersionStatus.REJECTED,
                checked.reason, None, checked.matches,
            )  # fmt: skip
            return
        validation: list[Any] | None = checked.matches
        if version.ab:  # (compared where both play: a game new to the bot has no active version there)
            both = [game for game in plays if game in bot.games]
            validation = await self._ab_gate(version, entrant, both, checked.matches)
            if validation is None:
                return
        await asyncio.to_thread(versions.activate, self.db, version.bot, version.number, validation)
        if set(plays) != set(bot.games):  # its games change with the version that plays them
            await asyncio.to_thread(_set_games, self.db, version.bot, plays)
        # Warm processes of the version it replaces must not play another match.
        await self.retire({version.bot_id})

    async def _ab_gate(
        self, version: VersionRecord, entrant: Entrant, games: Sequence[str], validation: list[Any]
    ) -> list[Any] | None:
        """``submit --ab``: duel the new version against the active one in each game it plays.
        The validation to keep (the matches and the duel) if it may replace it; None if not. (A
        first version has nothing to be compared with.)"""
        bot = await asyncio.to_thread(ladder_bots.get_bot, self.db, version.bot)
        if bot.active_version is None:
            return validation
        active = (await asyncio.to_thread(entrants_of, self.db, (version.bot_id,)))[0]
        await asyncio.to_thread(versions.mark_testing, self.db, version.bot, version.number, validation)
        await self.notify()
        kept = validation
        writing = asyncio.Lock()  # one game's progress at a time: each rewrites the version's list

        async def report(progress: dict[str, Any]) -> None:
            nonlocal kept
            async with writing:
                kept = await asyncio.to_thread(
                    versions.record_ab, self.db, version.bot, version.number, progress
                )
            await self.notify()

        failed = await duel_games(
            self.roster, bot.name, entrant, active, bot.active_version, games, self.control,
            SeedRoom(self.admission), report, keeper(self.db, version.bot, version.number, "duel"),
        )  # fmt: skip
        if failed is not None:
            await asyncio.to_thread(
                versions.mark_failed, self.db, version.bot, version.number, VersionStatus.REJECTED,
                f"A/B duel: {failed.words()}", None, kept,
            )  # fmt: skip
            return None
        return kept

    async def _build(self, version: VersionRecord) -> BuildResult:
        assert version.archive_hash is not None
        archive = self.blobs.path(version.archive_hash)
        limits = self.limits
        return await build_archive(
            archive,
            sniff_format(archive),
            self.builds,
            self.sandbox,
            limits.build,
            self.temp_root,
            limits.archive,
            progress=lambda process, clock: self.live_logs.building(
                version.bot, version.number, process, clock
            ),
        )


def _set_games(db: Database, name: str, games: list[str]) -> None:
    ladder_bots.edit_bot(db, name, games=games)
