"""What runs inside the jail to read a stranger's bytes
(``python -I -m kingmaker.server.building.archive_step``).

The server never parses, unpacks or packs an author's archive or build on the host: it starts this
program in the jail (``jailed_unpack``), as an unprivileged user that sees nothing of the host but
the read-only system and Python and the one empty folder it fills (``OUTPUT_FOLDER``). The archive
comes in on stdin, already opened by the server; one JSON line goes out on stdout. Whatever a
parser bug lets an archive do here (CVE-2025-4517 in ``tarfile``'s filter was one) it does inside
the jail. Each step leaves its folder as the host may keep it without looking through it: no
hard link (two names of one file are made two files), no special file, and readable by all.

Modes (argv): ``check KIND LIMITS`` (members counted), ``unpack KIND LIMITS OUT`` (checked,
unpacked, its manifest read), ``unpack-built OUT`` (a built folder another server packed, a
gzipped tar), ``build SOURCE TARGET OUT BOUND [SEED NOTE]`` (copy the submission in, and each entry of the
prepared toolchain cache SEED it has none of (``seed``), say NOTE, run the build command read from
stdin, copy the built folder out if it is within BOUND, ``FolderBound`` as JSON: the command is
never an argument, since every process's arguments show in the host's ``ps``).
LIMITS is ``ArchiveLimits`` as JSON.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from kingmaker.server.building.manifest import ManifestError, read_manifest
from kingmaker.server.building.submission_archive import ArchiveRefused, check_archive, unpack
from kingmaker.server.building.submission_limits import ArchiveLimits
from kingmaker.server.jail.folder_bound import FolderBound, FolderCount, FolderTooBig
from kingmaker.server.jail.no_follow import count_tree

if TYPE_CHECKING:
    from _typeshed import StrOrBytesPath

REFUSED_EXIT = 3
"""The step refused what it was given (the JSON line says why); other non-zero codes: it broke."""


class OutputRefused(ValueError):
    """What was unpacked or built cannot be kept (a special file); one line."""


def main(argv: list[str]) -> int:
    mode, args = argv[0], argv[1:]
    try:
        if mode == "check":
            answer: dict[str, Any] = {"members": check_archive(_stdin(), args[0], _limits(args[1]))}
        elif mode == "unpack":
            answer = unpack_submission(_stdin(), args[0], _limits(args[1]), Path(args[2]))
        elif mode == "unpack-built":
            unpack_built(_stdin(), Path(args[0]))
            answer = {}
        elif mode == "build":
            target = Path(args[1]) if args[1] else Path.home() / "bot"
            command = _stdin().read().decode()
            bound = FolderBound(**json.loads(args[3]))
            seeds, note = (Path(args[4]) if args[4] else None, args[5]) if len(args) > 4 else (None, "")
            return build(Path(args[0]), target, Path(args[2]), command, bound, seeds, note)
        else:
            raise SystemExit(f"unknown mode {mode!r}")
    except (ArchiveRefused, OutputRefused) as error:
        print(json.dumps({"refused": str(error)}), flush=True)
        return REFUSED_EXIT
    print(json.dumps(answer), flush=True)
    return 0


def unpack_submission(archive: BinaryIO, kind: str, limits: ArchiveLimits, out: Path) -> dict[str, Any]:
    """Check and unpack a submission into ``out``; its member count and manifest (or why none)."""
    members = check_archive(archive, kind, limits)
    try:
        unpack(archive, kind, out, limits)
        settle(out)
    except OSError as error:  # a member that cannot be written where it says (a link's doing)
        raise ArchiveRefused(f"a member cannot be unpacked: {error.strerror or error}") from None
    try:
        manifest = read_manifest(out)
    except ManifestError as error:
        return {"members": members, "manifest_error": str(error)}
    return {"members": members, "manifest": dataclasses.asdict(manifest)}


def unpack_built(archive: BinaryIO, out: Path) -> None:
    """Unpack a built folder sent as a gzipped tar (``BuildStore.pack``) into ``out``."""
    try:
        with tarfile.open(fileobj=archive, mode="r:gz") as packed:
            packed.extractall(out, filter="data")
    except (tarfile.TarError, OSError, EOFError) as error:
        raise OutputRefused(f"the packed folder cannot be unpacked: {error}") from None
    settle(out)


def build(
    source: Path,
    target: Path,
    out: Path,
    command: str,
    bound: FolderBound,
    seeds: Path | None = None,
    note: str = "",
) -> int:
    """Copy the submission into the bot's folder, and the prepared cache's entries it lacks
    (``seed``), build there, and copy the built folder to ``out`` (through a tar, each member
    through the ``data`` filter: no link leaves it), counted against ``bound`` as it goes.
    ``note`` (what cache the build starts from) is the log's first line."""
    shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)
    if seeds is not None:
        seed(seeds, target)
    os.chdir(target)
    if note:
        print(note, file=sys.stderr, flush=True)
    if command:
        print("$ " + command, file=sys.stderr, flush=True)
        code = _run_script(command)
        if code:
            space = os.statvfs(target)
            if space.f_bavail * space.f_frsize < 65536:
                print("kingmaker: the bot's folder is full", file=sys.stderr)
            return code if code > 0 else 128 - code
    try:
        count_tree(target, bound)  # (refused before any copy; the copy counts again as it goes)
        copy_through_filter(target, out, bound)
        settle(out)
    except (OutputRefused, FolderTooBig, tarfile.TarError, OSError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        print(json.dumps({"refused": f"the build left {reason}"}), flush=True)
        return REFUSED_EXIT
    print(json.dumps({}), flush=True)
    return 0


def seed(cache: Path, target: Path) -> None:
    """Copy each entry of the prepared toolchain cache (read-only) into ``target`` where the
    submission has none of that name, writable by the build: it writes only to its copy."""
    for entry in sorted(os.listdir(cache)):
        if os.path.lexists(target / entry):
            continue  # the author's own cache, or a file of that name: theirs wins
        for parent, folders, files in os.walk(cache / entry):
            inside = target / os.path.relpath(parent, cache)
            inside.mkdir(mode=0o755)
            for name in files:
                original = os.path.join(parent, name)
                if os.path.islink(original):
                    os.symlink(os.readlink(original), inside / name)
                    continue
                shutil.copyfile(original, inside / name)
                # (its times kept: cargo judges a copied dependency's build script by them)
                shutil.copystat(original, inside / name)
                os.chmod(inside / name, 0o755 if os.stat(original).st_mode & 0o100 else 0o644)
            for name in [name for name in folders if os.path.islink(os.path.join(parent, name))]:
                folders.remove(name)
                os.symlink(os.readlink(os.path.join(parent, name)), inside / name)


def _run_script(command: str) -> int:
    """Run the build command by ``sh`` from a file of the build's own (``sh -c COMMAND`` would
    show it to the host's ``ps``); its exit code."""
    with tempfile.NamedTemporaryFile("w", prefix="build-command-", suffix=".sh") as script:
        script.write(command + "\n")
        script.flush()
        return subprocess.call(["sh", script.name], stdin=subprocess.DEVNULL, stdout=2)


def copy_through_filter(folder: Path, out: Path, bound: FolderBound | None = None) -> None:
    """Write ``folder`` as a tar into a pipe and unpack it from there into ``out``, its files'
    holes (and runs of zeros) left holes. Each member is counted as it is packed: past ``bound``
    the copy stops (``FolderTooBig``), before a file past it is written."""
    reading, writing = os.pipe()
    with contextlib.suppress(OSError):  # (fewer turns between the two threads: a third less time)
        fcntl.fcntl(writing, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    failed: list[BaseException] = []
    count = FolderCount(bound or FolderBound(0, 0))

    def counted(member: tarfile.TarInfo) -> tarfile.TarInfo:
        count.add(member.size if member.isreg() else len(member.linkname))
        return member

    def pack() -> None:
        try:
            with os.fdopen(writing, "wb") as stream, tarfile.open(fileobj=stream, mode="w|") as archive:
                for entry in sorted(os.listdir(folder)):
                    archive.add(folder / entry, arcname=entry, filter=counted)
        except BaseException as error:  # the reader sees a cut stream; the cause is kept
            failed.append(error)

    packer = threading.Thread(target=pack, daemon=True)
    packer.start()
    try:
        with os.fdopen(reading, "rb") as stream, _HoleKeepingTar.open(fileobj=stream, mode="r|") as archive:
            try:
                archive.extractall(out, filter="data")
            except tarfile.FilterError as error:
                raise OutputRefused(str(error)) from None
            # Extraction stops at the end-of-archive block, which may come before the rest of
            # the packer's last record: read that too, or the packer finds the pipe closed.
            while stream.read(1 << 16):
                pass
    except (tarfile.TarError, OSError):
        packer.join()
        if failed:  # (the stream was cut because the packer stopped: its cause says why)
            raise failed[0] from None
        raise
    finally:
        packer.join()
    if failed:
        raise failed[0]


class _HoleKeepingTar(tarfile.TarFile):
    """Unpacks a file's runs of zeros as holes: a sparse file, sent through the tar as zeros,
    does not become memory on the tmpfs it is unpacked to."""

    def makefile(self, tarinfo: tarfile.TarInfo, targetpath: StrOrBytesPath) -> None:
        source = self.fileobj
        assert source is not None
        source.seek(tarinfo.offset_data)
        with open(targetpath, "wb") as target:
            left = tarinfo.size
            while left:
                block = source.read(min(left, HOLE_BLOCK))
                if not block:
                    raise tarfile.ReadError("unexpected end of data")
                if block.count(0) == len(block):
                    target.seek(len(block), os.SEEK_CUR)
                else:
                    target.write(block)
                left -= len(block)
            target.truncate()


HOLE_BLOCK = 64 * 1024
PIPE_BYTES = 1024 * 1024


def settle(folder: Path) -> None:
    """Leave ``folder`` as the host may keep it: refuse special files, make each extra name of
    a file a copy of its own, and make everything readable by all (folders enterable)."""
    os.chmod(folder, 0o755)
    for parent, folders, files in os.walk(folder):
        for name in folders + files:
            path = os.path.join(parent, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                continue
            if stat.S_ISDIR(info.st_mode):
                os.chmod(path, 0o755)
            elif stat.S_ISREG(info.st_mode):
                if info.st_nlink > 1:
                    _own_copy(path)
                os.chmod(path, 0o755 if info.st_mode & 0o100 else 0o644)
            else:
                raise OutputRefused(
                    f"{os.path.relpath(path, folder)[:80]!r} is a device or other special file"
                )


def _own_copy(path: str) -> None:
    """Replace one name of a hard-linked file by a copy of its own."""
    descriptor, copy = tempfile.mkstemp(dir=os.path.dirname(path))
    with os.fdopen(descriptor, "wb") as output, open(path, "rb") as original:
        shutil.copyfileobj(original, output)
    # Its times kept: cargo links each build script under two names, and judges the crates
    # built after it fresh only if it is older than they are (a prepared toolchain cache).
    shutil.copystat(path, copy)
    os.replace(copy, path)


def _stdin() -> BinaryIO:
    """The archive the server opened for this step (a file, so it may be read more than once)."""
    return os.fdopen(0, "rb", closefd=False)


def _limits(text: str) -> ArchiveLimits:
    return ArchiveLimits(**json.loads(text))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
