"""Reading a stranger's bytes in the jail: the host side of ``archive_step``.

A submitted archive is checked (``check_in_jail``, before it is stored), unpacked with its
manifest read (``unpack_in_jail``, before a build), and a built folder sent by another server is
unpacked (``unpack_built_in_jail``, on a Ray node), each by ``archive_step`` in the same jail as
play: bubblewrap, no network, nothing of the host but the read-only system and Python, the
archive on stdin (opened here: the jailed user could not open the server's file) and one empty
folder it may write. When the server runs as root, the step runs as a user id of its own (as a
bot does), so even a bug in the jail's set-up leaves it unable to write root's files; otherwise
it is the server's user in a user namespace. Without a jail the step still runs in a process of
its own (as that user, where the server is root) when the operator allowed unjailed bots.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from kingmaker.server.building.archive_step import REFUSED_EXIT
from kingmaker.server.building.manifest import Manifest, ManifestError
from kingmaker.server.building.submission_archive import ArchiveRefused
from kingmaker.server.building.submission_limits import ArchiveLimits
from kingmaker.server.jail.launcher import BotProcess
from kingmaker.server.jail.memory_files import memory_file
from kingmaker.server.jail.sandbox import OUTPUT_FOLDER, GiB, Limits, MiB, SandboxPolicy, bubblewrap

STEP = (sys.executable, "-I", "-m", "kingmaker.server.building.archive_step")
OUT = "\0out"
"""Stands in a step's arguments for where its folder is: ``OUTPUT_FOLDER`` in the jail."""
STEP_SECONDS = 300.0
"""Wall-clock time for one check or unpack (a 512 MiB archive takes seconds)."""
STEP_LIMITS = Limits(
    cpu_seconds=300,
    memory_bytes=2 * GiB,
    processes=16,
    open_files=256,
    file_bytes=1 * GiB,
    bot_memory_bytes=1 * GiB,
    disk_bytes=16 * MiB,
)
"""What a step may use: its folder on disk is bounded by the archive's own checks."""


class StepFailed(RuntimeError):
    """The step broke (not a refusal of the archive): the server's fault, said in one line."""


async def check_in_jail(
    archive: Path, kind: str, limits: ArchiveLimits, sandbox: SandboxPolicy, temp_root: Path | None = None
) -> int:
    """Check every member of a received archive in the jail; how many it has, or ``ArchiveRefused``."""
    answer = await run_step(["check", kind, _limits(limits)], sandbox, archive, None, temp_root)
    return int(answer["members"])


async def unpack_in_jail(
    archive: Path,
    kind: str,
    limits: ArchiveLimits,
    destination: Path,
    sandbox: SandboxPolicy,
    temp_root: Path | None = None,
) -> Manifest:
    """Check and unpack an archive into the empty folder ``destination``, in the jail, and read its
    manifest there; ``ArchiveRefused`` or ``ManifestError`` (one line each) when it has none."""
    answer = await run_step(["unpack", kind, _limits(limits), OUT], sandbox, archive, destination, temp_root)
    if "manifest_error" in answer:
        raise ManifestError(str(answer["manifest_error"]))
    fields: dict[str, Any] = answer["manifest"]
    return Manifest(
        run=tuple(fields["run"]),
        build=str(fields["build"]),
        protocol=str(fields["protocol"]),
        language=str(fields["language"]),
        games=tuple(fields["games"]),
        detected=str(fields["detected"]),
    )


def unpack_built_in_jail(
    packed: bytes, destination: Path, sandbox: SandboxPolicy, temp_root: Path | None = None
) -> None:
    """Unpack a built folder another server packed (``BuildStore.pack``) into ``destination``,
    in the jail (a Ray node's cache; called from a thread of its own)."""
    with tempfile.NamedTemporaryFile(prefix="kingmaker-packed-", dir=temp_root) as archive:
        archive.write(packed)
        archive.flush()
        step = run_step(["unpack-built", OUT], sandbox, Path(archive.name), destination, temp_root)
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop in this thread (the usual case: ``asyncio.to_thread``)
            asyncio.run(step)
            return
        with concurrent.futures.ThreadPoolExecutor(1) as alone:  # called from a loop's own thread
            alone.submit(asyncio.run, step).result()


async def run_step(
    args: list[str],
    sandbox: SandboxPolicy,
    archive: Path | None,
    output: Path | None,
    temp_root: Path | None,
    limits: Limits = STEP_LIMITS,
    seconds: float = STEP_SECONDS,
) -> dict[str, Any]:
    """Run ``archive_step`` with ``args`` in the jail, the archive on its stdin and ``output``
    its only writable host folder; its answer, ``ArchiveRefused``, or ``StepFailed``."""
    policy = dataclasses.replace(
        sandbox,
        limits=limits,
        tmp_bytes=16 * MiB,
        unix_socket=None,
        bot_folder=None,
        build_from=None,
        output_folder=None if output is None else str(output),
        read_only_paths=(),
    )
    jailed = policy.isolate and bubblewrap().usable
    where = OUTPUT_FOLDER if jailed else str(output)
    command = [*STEP, *(where if arg == OUT else arg for arg in args)]
    async with _opened(archive) as stdin:
        with memory_file("kingmaker-step-output") as answer:
            process = await BotProcess.start(
                command, {}, sandbox=policy, temp_root=temp_root, stdout=answer, stdin=stdin
            )
            timed_out = False
            try:
                await asyncio.wait_for(process.process.wait(), seconds)
            except TimeoutError:
                timed_out = True
            finally:
                await process.stop(grace=0)
                log = process.stderr_tail(4000)
                process.discard_logs()
            answer.seek(0)
            lines = answer.read(1 << 20).decode(errors="replace").splitlines()
    if timed_out:
        raise StepFailed(f"unpacking took longer than {seconds:g} s and was stopped")
    parsed = last_json(lines)
    if process.returncode == REFUSED_EXIT and parsed is not None and "refused" in parsed:
        raise ArchiveRefused(str(parsed["refused"]))
    if process.returncode != 0 or parsed is None:
        last = (log.strip().splitlines() or ["no output"])[-1]
        raise StepFailed(f"the jailed unpacking {process.exit_description()}: {last[:200]}")
    return parsed


def last_json(lines: list[str]) -> dict[str, Any] | None:
    """A step's answer: the last line of its output that is a JSON object."""
    for line in reversed(lines):
        with contextlib.suppress(ValueError):
            found = json.loads(line)
            if isinstance(found, dict):
                return found
    return None


@contextlib.asynccontextmanager
async def _opened(archive: Path | None) -> Any:
    if archive is None:
        yield asyncio.subprocess.DEVNULL
        return
    # A copy in memory: the step's /proc/self/fd/0 then names no host path (the blob's is
    # under the home); at most an archive's size, while the step runs. Copied in a thread: 64 MiB
    # is tens of ms, which four uploads at once took from the event loop (issue 35).
    with memory_file("kingmaker-archive") as handle:
        await asyncio.to_thread(_copy, archive, handle)
        yield handle


def _copy(archive: Path, handle: Any) -> None:
    with archive.open("rb") as source:
        shutil.copyfileobj(source, handle, 1 << 20)
    handle.seek(0)


def _limits(limits: ArchiveLimits) -> str:
    return json.dumps(dataclasses.asdict(limits))
