"""Building a bot's folder in the jail: what a submission becomes before it may play.

A build runs in the same jail as play (no network, its own user, cgroup and rlimits, nothing of
the server's home), with the server's toolchains read-only (``/usr`` is shown) and limits of its
own (``submission_limits.BuildLimits``). The submission is unpacked, checked and its manifest
read in the jail too (``jailed_unpack``), never on the host; it is shown read-only at
``/submission``; the bot's folder, ``/bot``, is a tmpfs of the build's disk quota. The jail's first
step (``archive_step build``) copies the submission into ``/bot``, runs the manifest's ``build``
there (``sh``, its output is the build log), and copies ``/bot`` into an empty folder of the
store shown at ``/out`` if it is within ``BuildLimits.kept`` (its files' lengths, sparse or not,
within the disk quota; its entries within ``files``), which the server keeps, without following
a link in it and counting it again, as the built folder (``build_store``): the bot later plays
from that folder, shown read-only at the same ``/bot``, so whatever path the build baked in
stays true.

A build of a language with a prepared toolchain cache (``toolchain_caches``: Go's build cache,
cargo's dependencies) starts from it: prepared once, by building that language's kit the same
way, it is shown read-only at ``TOOLCHAIN_CACHE_FOLDER`` and copied into ``/bot`` by the step.

``build_folder`` builds any folder of this machine (``bot add --path``, ``match run --seat
NAME=DIR``, the starter kits' tests); ``build_archive`` builds a submitted archive.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import shlex
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from kingmaker.kits.starter import write_kit
from kingmaker.server.building.archive_step import REFUSED_EXIT
from kingmaker.server.building.build_clock import BuildClock, build_weight
from kingmaker.server.building.build_store import BuildOutputRefused, BuildStore
from kingmaker.server.building.jailed_unpack import STEP, StepFailed, last_json, unpack_in_jail
from kingmaker.server.building.log_tail import ending
from kingmaker.server.building.manifest import PYTHONS, Manifest, ManifestError
from kingmaker.server.building.submission_archive import ArchiveRefused
from kingmaker.server.building.submission_limits import ArchiveLimits, BuildLimits
from kingmaker.server.building.toolchain_caches import (
    KIT_NAME,
    KIT_STUBS,
    SEEDS,
    PreparedCache,
    ToolchainCaches,
    caches_beside,
)
from kingmaker.server.jail.launcher import BotProcess, LaunchError
from kingmaker.server.jail.memory_files import memory_file
from kingmaker.server.jail.no_follow import lexists_inside, tree_hash
from kingmaker.server.jail.sandbox import (
    BOT_FOLDER,
    OUTPUT_FOLDER,
    SUBMISSION_FOLDER,
    TOOLCHAIN_CACHE_FOLDER,
    SandboxPolicy,
    bubblewrap,
)
from kingmaker.server.packing import pack_folder

log = logging.getLogger("kingmaker.server.building.builds")

FULL_DISK_MARKERS = ("No space left on device", "kingmaker: the bot's folder is full")
FORK_MARKERS = ("Resource temporarily unavailable", "Cannot fork", "fork: retry", "can't fork")
BUILD_START_SECONDS = 120.0
"""The longest the jail and its first step may take to start the build's command. A build's time
limit counts from that command's start (the step's ``$ command`` line on stderr): on a loaded
machine the jail, the step's interpreter and the copy of the submission can take seconds, and
that time is the server's, not the build's."""
START_POLL_SECONDS = 0.05
CLOCK_POLL_SECONDS = 0.5
"""How often a running build's CPU time is read against its limit (a cgroup file, or /proc)."""
REWEIGH_SECONDS = 5.0
"""How often a running build's CPU weight follows the load (``build_clock.build_weight``)."""
_running_builds = 0
"""Builds of this process running now: they share the builds' floor of the CPU."""

NETWORK_MARKERS = (
    "Network is unreachable",
    "Temporary failure in name resolution",
    "Could not resolve host",
    "Name or service not known",
    "Connection refused",
)


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    log: str
    """The build's output (its end, when long)."""
    reason: str = ""
    """Why it failed, in a sentence; empty when it built."""
    manifest: Manifest | None = None
    build_hash: str | None = None
    folder: Path | None = None
    """The built folder in the store (read-only)."""


async def build_folder(
    folder: Path,
    store: BuildStore,
    sandbox: SandboxPolicy,
    limits: BuildLimits | None = None,
    temp_root: Path | None = None,
    archive_limits: ArchiveLimits | None = None,
    toolchain_cache: bool = True,
    progress: Callable[[BotProcess | None, BuildClock | None], None] | None = None,
) -> BuildResult:
    """Build a folder of this machine: packed as ``submit`` packs it (its ignore files apply),
    checked and unpacked as a submission is, then built in the jail (from its language's prepared
    toolchain cache unless ``toolchain_cache`` is False)."""
    checks = archive_limits or ArchiveLimits()
    async with _staging("kingmaker-build-", temp_root) as staging:
        archive = Path(staging) / "folder.tar.gz"
        with archive.open("wb") as output:
            pack_folder(folder, output)
        return await build_archive(
            archive, "tar.gz", store, sandbox, limits, temp_root, checks, progress, toolchain_cache
        )


@contextlib.asynccontextmanager
async def _staging(prefix: str, temp_root: Path | None) -> AsyncIterator[str]:
    """A temporary folder, removed in a thread: an unpacked archive's removal is tens of ms,
    which four uploads at once took from the event loop (issue 35)."""
    folder = tempfile.TemporaryDirectory(prefix=prefix, dir=temp_root)
    try:
        yield folder.name
    finally:
        await asyncio.to_thread(folder.cleanup)


async def build_archive(
    archive: Path,
    kind: str,
    store: BuildStore,
    sandbox: SandboxPolicy,
    limits: BuildLimits | None = None,
    temp_root: Path | None = None,
    archive_limits: ArchiveLimits | None = None,
    progress: Callable[[BotProcess | None, BuildClock | None], None] | None = None,
    toolchain_cache: bool = True,
) -> BuildResult:
    """Build a submitted archive (checked again: it may come from the blob store). ``progress``
    is given the build's process once it runs (its stderr is the build log) and its clock, and
    None, None at its end."""
    checks = archive_limits or ArchiveLimits()
    async with _staging("kingmaker-unpacked-", temp_root) as staging:
        source = Path(staging) / "submission"
        source.mkdir()
        Path(staging).chmod(0o755)  # (the jailed users reach the folder through it)
        try:
            manifest = await unpack_in_jail(archive, kind, checks, source, sandbox, temp_root)
        except ArchiveRefused as error:
            return BuildResult(False, "", f"the archive was refused: {error}")
        except ManifestError as error:
            return BuildResult(False, "", str(error))
        except (StepFailed, LaunchError) as error:
            return BuildResult(False, "", f"the archive could not be unpacked: {error}")
        prepared = PreparedCache(None, "")
        if toolchain_cache:
            prepared = await prepared_cache(manifest.language, store, sandbox, temp_root)
        return await _build(
            source, manifest, store, sandbox, limits or BuildLimits(), temp_root, progress, prepared
        )


async def _build(
    source: Path,
    manifest: Manifest,
    store: BuildStore,
    sandbox: SandboxPolicy,
    limits: BuildLimits,
    temp_root: Path | None,
    progress: Callable[[BotProcess | None, BuildClock | None], None] | None = None,
    prepared: PreparedCache = PreparedCache(None, ""),
) -> BuildResult:
    incoming = await asyncio.to_thread(store.incoming, temp_root)
    try:
        return await _build_into(
            source, manifest, store, sandbox, limits, temp_root, incoming, progress, prepared
        )
    finally:
        if incoming.exists():
            await asyncio.to_thread(store.discard, incoming)


async def _build_into(
    source: Path,
    manifest: Manifest,
    store: BuildStore,
    sandbox: SandboxPolicy,
    limits: BuildLimits,
    temp_root: Path | None,
    incoming: Path,
    progress: Callable[[BotProcess | None, BuildClock | None], None] | None,
    prepared: PreparedCache,
) -> BuildResult:
    cache = str(prepared.folder) if prepared.folder is not None else None
    policy = dataclasses.replace(
        sandbox,
        limits=limits.limits,
        tmp_bytes=limits.tmp_bytes,
        build_from=str(source),
        bot_folder=None,
        output_folder=str(incoming),
        toolchain_cache=cache,
    )
    jailed = policy.isolate and bubblewrap().usable
    paths = [SUBMISSION_FOLDER, BOT_FOLDER, OUTPUT_FOLDER] if jailed else [str(source), "", str(incoming)]
    seeds = "" if cache is None else TOOLCHAIN_CACHE_FOLDER if jailed else cache
    bound = json.dumps(dataclasses.asdict(limits.kept))
    # (the build command comes on stdin: see archive_step)
    command = [*STEP, "build", *paths, bound, seeds, prepared.note]
    with memory_file("kingmaker-step-output") as output, memory_file("kingmaker-build-command") as script:
        script.write(manifest.build.encode())
        script.seek(0)
        try:
            process = await BotProcess.start(
                command, {}, sandbox=policy, temp_root=temp_root, stdout=output, stdin=script
            )
        except LaunchError as error:
            return BuildResult(False, "", f"the build could not start: {error}", manifest)
        clock = BuildClock(limits.seconds, limits.wall_seconds)
        if progress is not None:
            progress(process, clock)
        try:
            await _command_started(process, BUILD_START_SECONDS)
            stopped_by = await _within_limits(process, limits, clock)
        finally:
            if progress is not None:
                progress(None, None)
            await process.stop(grace=0)
            log = process.stderr_tail(limits.log_bytes)
            process.discard_logs()
        output.seek(0)
        answer = last_json(output.read(65536).decode(errors="replace").splitlines()) or {}
        if not stopped_by and process.returncode == REFUSED_EXIT and "refused" in answer:
            refusal = answer["refused"]
            return BuildResult(False, log, f"the built folder cannot be kept: {refusal}", manifest)
        if stopped_by or process.returncode != 0:
            reason = failure_reason(process.returncode, stopped_by, process.limit_events, log, limits)
            return BuildResult(False, log, reason, manifest)
        try:
            build_hash = await asyncio.to_thread(store.keep, incoming, limits.kept)
        except (BuildOutputRefused, OSError) as error:
            return BuildResult(False, log, f"the built folder cannot be kept: {error}", manifest)
    folder = store.path(build_hash)
    missing = missing_program(manifest, folder)
    if missing:
        return BuildResult(False, log, missing, manifest, build_hash, folder)
    return BuildResult(True, log, "", manifest, build_hash, folder)


async def prepared_cache(
    language: str, store: BuildStore, sandbox: SandboxPolicy, temp_root: Path | None
) -> PreparedCache:
    """The prepared toolchain cache a build of ``language`` starts from, prepared now (once, the
    build waiting: its CPU is not the build's) if there is none yet; nothing for a language with
    no cache, or when caches are off or the preparation failed (the note says so)."""
    caches = caches_beside(store.root)
    if caches is None or language not in SEEDS:
        return PreparedCache(None, "")
    async with caches.lock(language):
        if language in caches.failed:
            return _without_cache(language, caches.failed[language])
        try:
            folder = await _prepare(language, caches, sandbox, temp_root)
        except (OSError, ValueError) as error:  # (InitError, a failed build, a full disk)
            why = (language, str(error))
            caches.failed[language] = str(error)
            log.warning("the %s toolchain cache could not be prepared: %s; builds go on without it", *why)
            return _without_cache(language, str(error))
    where = TOOLCHAIN_CACHE_FOLDER if sandbox.isolate and bubblewrap().usable else folder
    note = f"kingmaker: this build starts from the server's prepared {language} toolchain cache"
    return PreparedCache(folder, f"{note} ({where}, read-only)")


def _without_cache(language: str, why: str) -> PreparedCache:
    note = f"kingmaker: no prepared {language} toolchain cache ({why})"
    return PreparedCache(None, f"{note}: this build compiles its libraries itself")


def write_cache_kit(work: Path, language: str) -> tuple[Path, str]:
    """The kit a preparation of ``language``'s cache builds, written in ``work``, and its key (its
    hash: the cache a build starts from is the one prepared from the kit written now)."""
    kit = write_kit(work / KIT_NAME, language, (), KIT_NAME)
    for name, text in KIT_STUBS.get(language, {}).items():
        if text is None:
            (kit / name).unlink()
        else:
            (kit / name).write_text(text)
    return kit, tree_hash(kit)


async def _prepare(
    language: str, caches: ToolchainCaches, sandbox: SandboxPolicy, temp_root: Path | None
) -> Path:
    """The language's prepared cache: its kit written, and built as any build is if not kept yet."""
    with tempfile.TemporaryDirectory(prefix="kingmaker-cache-", dir=temp_root) as work:
        kit, key = await asyncio.to_thread(write_cache_kit, Path(work), language)
        folder = caches.prepared(language, key)
        if folder is not None:
            return folder
        log.info("preparing the %s toolchain cache (once): building its kit", language)
        store = BuildStore(Path(work) / "builds", sandbox)
        clocks: list[BuildClock] = []

        def progress(_: BotProcess | None, clock: BuildClock | None) -> None:
            clocks.extend([clock] if clock is not None else [])

        # (no temp_root: the step's output is then kept by a rename, not copied, so its files
        # keep their times, by which cargo judges a dependency's build script fresh)
        built = await build_folder(kit, store, sandbox, progress=progress, toolchain_cache=False)
        if not built.ok or built.folder is None:
            raise ValueError(f"its kit did not build: {built.reason}")
        folder = await asyncio.to_thread(caches.keep, language, key, built.folder)
        if clocks:
            caches.spent[language] = clocks[-1]
            used = f"{clocks[-1].cpu_seconds:.0f} CPU-s, {clocks[-1].wall_seconds:.0f} s"
            log.info("the %s toolchain cache is prepared in %s (%s)", language, folder, used)
        return folder


async def _within_limits(process: BotProcess, limits: BuildLimits, clock: BuildClock) -> str:
    """Until the build ends ("") or runs past a limit ("cpu", "wall"); its CPU weight raised
    meanwhile to the builds' floor (``build_clock.build_weight``)."""
    loop = asyncio.get_running_loop()
    started, before = loop.time(), process.cpu_seconds()  # (the jail's start is not the build's)
    ended = asyncio.ensure_future(process.process.wait())
    global _running_builds
    _running_builds += 1
    try:
        reweighed = float("-inf")
        while not ended.done():
            now = loop.time()
            clock.cpu_seconds, clock.wall_seconds = process.cpu_seconds() - before, now - started
            if clock.cpu_seconds > limits.seconds:
                return "cpu"
            if clock.wall_seconds > limits.wall_seconds:
                return "wall"
            if process.cgroup is not None and now - reweighed >= REWEIGH_SECONDS:
                process.cgroup.set_cpu_weight(build_weight(limits.limits.cpu_weight, _running_builds))
                reweighed = now
            await asyncio.wait({ended}, timeout=CLOCK_POLL_SECONDS)
        clock.cpu_seconds, clock.wall_seconds = process.cpu_seconds() - before, loop.time() - started
        return ""
    finally:
        _running_builds -= 1
        ended.cancel()


async def _command_started(process: BotProcess, within: float) -> None:
    """Until the step has said it starts the build's command (its first line on stderr), or has
    ended (a folder with no build command), or ``within`` seconds have gone by."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while process.stderr_size() == 0 and process.returncode is None and loop.time() < deadline:
        await asyncio.sleep(START_POLL_SECONDS)


def failure_reason(
    code: int | None, stopped_by: str, events: dict[str, int], log: str, limits: BuildLimits
) -> str:
    """Which limit stopped a build (``stopped_by``: "cpu", "wall" or ""), or how it failed."""
    budget = limits.limits
    if stopped_by == "cpu":
        return f"the build used its CPU time limit ({limits.seconds:g} CPU-s) and was stopped"
    if stopped_by == "wall":
        return f"the build ran past its wall-clock limit ({limits.wall_seconds:g} s) and was stopped"
    if events.get("oom_kill"):
        return f"the build ran out of memory (its limit: {budget.bot_memory_bytes / 2**20:g} MiB)"
    if events.get("pids_max") or any(marker in log for marker in FORK_MARKERS):
        return f"the build hit its process limit ({budget.processes} processes)"
    if any(marker in log for marker in FULL_DISK_MARKERS):
        return f"the build filled its disk (the bot's folder holds {budget.disk_bytes / 2**20:g} MiB)"
    if any(marker in log for marker in NETWORK_MARKERS):
        return "the build tried to reach the network: builds have none (dependencies come in the submission)"
    return f"the build failed with exit code {code}{ending(log)}"


def missing_program(manifest: Manifest, folder: Path) -> str:
    """A sentence when the run command's file is not in the built folder, else empty."""
    run = manifest.run
    named = run[0]
    if run[0] in (*PYTHONS, "node") and len(run) > 1 and not run[1].startswith("-"):
        named = run[1]
    elif run[:2] == ("java", "-jar") and len(run) > 2:
        named = run[2]
    elif "/" not in run[0]:
        return ""  # a program on the PATH
    if os.path.isabs(named) or lexists_inside(folder, named) is not False:
        return ""  # there, or behind a link in the folder (the host does not follow it)
    files = sorted(os.listdir(folder))
    shown = ", ".join(files[:20]) + (f" and {len(files) - 20} more" if len(files) > 20 else "")
    return f"{shlex.quote(named)} is not in its built folder ({BOT_FOLDER}); files there: {shown or 'none'}"
