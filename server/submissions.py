"""A submitted version's way to the ladder: build, validate, activate, in the background.

``Submit`` stores the archive and answers at once with the new version ("building"); this
pipeline then builds it in the jail (``builds``), validates it against random bots
(``version_checks``) and, when it passes (and, with ``submit --ab``, once it has shown in an SPRT
duel against the active version that it is not weaker: ``AB_TEST``),
makes it the version that plays (``ladder.versions.activate``). Each step is written to the
database, and watchers (``WatchVersion``) are woken at every change. A version that fails at any
step leaves the previous one playing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kingmaker.games.registry import get_game
from kingmaker.ladder import bots as ladder_bots
from kingmaker.ladder import versions
from kingmaker.ladder.db import Database
from kingmaker.ladder.models import VersionStatus
from kingmaker.ladder.versions import VersionRecord
from kingmaker.sdk.sprt import Sprt, Verdict, confidence, elo_estimate
from kingmaker.server.build_progress import LiveBuildLogs
from kingmaker.server.build_store import BlobStore, BuildStore
from kingmaker.server.builds import build_archive
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.duels import DuelSetup, DuelState, duel
from kingmaker.server.rated import entrants_of
from kingmaker.server.roster import Entrant, Roster
from kingmaker.server.sandbox import SandboxPolicy
from kingmaker.server.submission_archive import sniff_format
from kingmaker.server.submission_limits import SubmissionLimits
from kingmaker.server.version_checks import validate

log = logging.getLogger("kingmaker.server")

Retire = Callable[[set[int]], Awaitable[None]]
"""Stops a bot's warm processes wherever they run (the executor's ``retire``)."""


AB_TEST = Sprt(elo0=-50.0, elo1=0.0, alpha=0.05, beta=0.05)
"""``submit --ab``: H0 "the new version is 50 Elo weaker than the active one", H1 "it is not
weaker". It replaces the active version only when the test accepts H1, in every game it plays."""
AB_MAX_MATCHES = 400
"""Per game; a duel still undecided then keeps the active version (the new one may be weaker)."""


def ab_progress(game: str, state: DuelState) -> dict[str, Any]:
    """A duel's state as a version keeps it (``VersionInfo.ab``)."""
    mean, low, high = confidence(state.units)
    elo, half = elo_estimate(state.units)
    return {
        "game": game, "seeds": state.units.n, "matches": state.matches, "score": mean, "score_low": low,
        "score_high": high, "elo": elo, "elo_half_width": half, "llr": AB_TEST.llr(state.units),
        "llr_lower": AB_TEST.lower, "llr_upper": AB_TEST.upper, "verdict": state.verdict.value,
        "done": state.done, "reason": state.reason,
    }  # fmt: skip


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

    def __post_init__(self) -> None:
        self.changed = asyncio.Condition()
        """Notified whenever a version moves on."""
        self._running: set[asyncio.Task[None]] = set()
        self.live_logs = LiveBuildLogs()
        """What each build running now has printed so far (``WatchVersion`` streams it)."""

    def start(self, version: VersionRecord, games_given: bool = True) -> None:
        """Build, validate and activate this new version in the background."""
        task = asyncio.create_task(
            self._run(version, games_given), name=f"version {version.bot}@{version.number}"
        )
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def wait_for_change(self, seconds: float) -> None:
        async with self.changed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), seconds)

    async def idle(self) -> None:
        """Wait until every version started so far has finished its way (for tests)."""
        while self._running:
            await asyncio.gather(*list(self._running), return_exceptions=True)

    async def close(self) -> None:
        tasks = list(self._running)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def notify(self) -> None:
        """Wake every watcher: a version moved on."""
        async with self.changed:
            self.changed.notify_all()

    async def _run(self, version: VersionRecord, games_given: bool) -> None:
        try:
            await self._build_and_check(version, games_given)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a failure of the server's: say so on the version, never lose it
            log.exception("version %s of %s failed in the server", version.number, version.bot)
            reason = f"the server failed while building or validating it: {error}"
            await asyncio.to_thread(
                versions.mark_failed, self.db, version.bot, version.number, VersionStatus.BUILD_FAILED, reason
            )
        finally:
            await self.notify()

    async def _build_and_check(self, version: VersionRecord, games_given: bool) -> None:
        assert version.archive_hash is not None
        archive = self.blobs.path(version.archive_hash)
        limits = self.limits
        built = await build_archive(
            archive,
            sniff_format(archive),
            self.builds,
            self.sandbox,
            limits.build,
            self.temp_root,
            limits.archive,
            progress=lambda process: self.live_logs.building(version.bot, version.number, process),
        )
        manifest = built.manifest.as_dict() if built.manifest is not None else {}
        if not built.ok or built.manifest is None or built.build_hash is None:
            await asyncio.to_thread(
                versions.mark_failed, self.db, version.bot, version.number, VersionStatus.BUILD_FAILED,
                built.reason, built.log, None, manifest,
            )  # fmt: skip
            return
        run = built.manifest
        if run.games and not games_given:
            await asyncio.to_thread(_set_games, self.db, version.bot, list(run.games))
        await asyncio.to_thread(
            versions.mark_built, self.db, version.bot, version.number, built.build_hash, run.run,
            run.protocol, manifest, built.log,
        )  # fmt: skip
        await self.notify()
        bot = await asyncio.to_thread(ladder_bots.get_bot, self.db, version.bot)
        entrant = Entrant(bot.name, None, run.run, None, version.number, run.protocol, built.build_hash)
        checked = await validate(self.roster, entrant, bot.games, self.control)
        if not checked.passed:
            await asyncio.to_thread(
                versions.mark_failed, self.db, version.bot, version.number, VersionStatus.REJECTED,
                checked.reason, None, checked.matches,
            )  # fmt: skip
            return
        validation: list[Any] | None = checked.matches
        if version.ab:
            validation = await self._ab_gate(version, entrant, bot.games, checked.matches)
            if validation is None:
                return
        await asyncio.to_thread(versions.activate, self.db, version.bot, version.number, validation)
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
        for game in games:
            setup = DuelSetup(
                game, get_game(game).spec.min_players, AB_TEST, secrets.randbits(40), AB_MAX_MATCHES,
                control=self.control,
            )  # fmt: skip
            async for state in duel(self.roster, entrant, active, setup):
                validation = await asyncio.to_thread(
                    versions.record_ab, self.db, version.bot, version.number, ab_progress(game, state)
                )
                await self.notify()
            if state.verdict is not Verdict.H1:
                said = f"against version {bot.active_version} in {game}: {state.reason}"
                await asyncio.to_thread(
                    versions.mark_failed, self.db, version.bot, version.number, VersionStatus.REJECTED,
                    f"its A/B duel did not show it is not weaker {said}", None, validation,
                )  # fmt: skip
                return None
        return validation


def _set_games(db: Database, name: str, games: list[str]) -> None:
    ladder_bots.edit_bot(db, name, games=games)
