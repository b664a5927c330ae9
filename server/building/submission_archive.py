"""Checking and unpacking a submitted archive: untrusted data until it is built.

An archive (``tar.gz``, ``tar`` or ``zip``) is checked whole before anything of it is unpacked or
stored: how many members, their sizes added up as their headers give them (so a gzip or zip bomb
is refused without being inflated), each path's length and depth, and each member through the
standard library's extraction filter (``tarfile.data_filter``: no path or link leaving the folder,
no absolute link, no device or other special file). An absolute member name is refused rather
than stripped (the filter would quietly make ``/etc/x`` into ``etc/x``). A zip's members are read
from its central directory and converted to tar members, so both go through the same filter.

Reading is bounded too: the bytes inflated from a compressed stream may not exceed what the
checked members need, so a huge extended header cannot fill memory.

The server runs none of this on the host: ``archive_step`` runs it in the jail, on the archive
given as an open file (``jailed_unpack``), because the filter itself has had holes
(CVE-2025-4517): a bug here can only write inside the jail.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from kingmaker.server.building.submission_limits import ArchiveLimits

FORMATS = ("tar.gz", "tar", "zip")
HEADER_ALLOWANCE = 3 * 512
"""Bytes of headers and padding a tar may spend per member (header, long name, padding)."""
LINK_BYTES = 4096
"""The longest link target a zip member may hold."""
_CHECK_DESTINATION = "/kingmaker-submission"
"""Where the filter is told the archive goes while checking (nothing is written there)."""


class ArchiveRefused(ValueError):
    """The archive breaks a rule; the message says which, in one line."""


Source = Path | BinaryIO
"""An archive: a file's path, or a file already open (read from its start)."""


def check_archive(path: Source, kind: str, limits: ArchiveLimits) -> int:
    """Check every member of the archive without unpacking it; how many members it has."""
    if kind == "zip":
        members = _zip_members(path, limits)
        check_zip_links(path, members, limits)
        return len(members)
    with _tar(path, kind, limits) as archive:
        return sum(1 for _ in _checked(archive, limits))


def check_zip_links(
    path: Source, members: list[tuple[zipfile.ZipInfo, tarfile.TarInfo]], limits: ArchiveLimits
) -> None:
    """A zip's links checked before anything is stored: a link's target is its member's content,
    read here, at most ``LINK_BYTES``, into memory only (nothing is written), and checked as a
    tar link would be. (Issue #32: a link out was refused only when the build unpacked it.)"""
    links = [(info, member) for info, member in members if member.issym()]
    if not links:
        return
    try:
        with zipfile.ZipFile(path) as archive:
            for info, member in links:
                with archive.open(info) as data:
                    target = data.read(LINK_BYTES + 1)
                if len(target) > LINK_BYTES:
                    raise ArchiveRefused(f"{info.filename[:80]!r} is a link longer than {LINK_BYTES} bytes")
                link = tarfile.TarInfo(member.name)
                link.type, link.linkname = tarfile.SYMTYPE, target.decode(errors="replace")
                _check_member(link, 1, 0, limits)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, NotImplementedError, RuntimeError) as error:
        raise ArchiveRefused(f"a zip link is damaged or encrypted: {error}") from None


def unpack(path: Source, kind: str, destination: Path, limits: ArchiveLimits) -> None:
    """Unpack a checked archive into ``destination`` (an empty folder), each member through the
    ``data`` extraction filter."""
    if kind == "zip":
        with _zip_as_tar(path, limits, destination) as archive:
            archive.extractall(destination, filter="data")
        return
    with _tar(path, kind, limits) as archive:
        for member in _checked(archive, limits):
            archive.extract(member, destination, filter="data")


def sniff_format(path: Path) -> str:
    """The archive's format from its first bytes (the blob store keeps no file name)."""
    with path.open("rb") as handle:
        start = handle.read(4)
    if start[:2] == b"\x1f\x8b":
        return "tar.gz"
    if start in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    return "tar"


def _checked(archive: tarfile.TarFile, limits: ArchiveLimits) -> Iterator[tarfile.TarInfo]:
    """The archive's members, each checked before the next is read."""
    count = total = 0
    while (member := _next(archive)) is not None:
        count += 1
        total += member.size
        _check_member(member, count, total, limits)
        yield member


def _next(archive: tarfile.TarFile) -> tarfile.TarInfo | None:
    try:
        return archive.next()
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise ArchiveRefused(f"the archive is damaged: {error}") from None


def _check_member(member: tarfile.TarInfo, count: int, total: int, limits: ArchiveLimits) -> None:
    if count > limits.files:
        raise ArchiveRefused(f"the archive holds more than {limits.files:,} files")
    if total > limits.unpacked_bytes:
        raise ArchiveRefused(f"the archive unpacks to more than {_mib(limits.unpacked_bytes)}")
    name = member.name
    if len(name) > limits.path_chars:
        raise ArchiveRefused(f"a path is longer than {limits.path_chars} characters: {name[:60]!r}...")
    if name.strip("/").count("/") >= limits.path_depth:
        raise ArchiveRefused(f"{name[:80]!r} is more than {limits.path_depth} folders deep")
    if name.startswith("/"):
        raise ArchiveRefused(f"{name[:80]!r} is an absolute path")
    if member.issparse():
        raise ArchiveRefused(f"{name[:80]!r} is a sparse file")
    try:
        tarfile.data_filter(member, _CHECK_DESTINATION)
    except tarfile.FilterError as error:
        raise ArchiveRefused(_filter_reason(error)) from None


def _filter_reason(error: tarfile.FilterError) -> str:
    name = error.tarinfo.name[:80]
    if isinstance(error, tarfile.AbsoluteLinkError):
        return f"{name!r} is a link to an absolute path ({error.tarinfo.linkname[:80]})"
    if isinstance(error, tarfile.LinkOutsideDestinationError):
        return f"{name!r} is a link that leaves the folder ({error.tarinfo.linkname[:80]})"
    if isinstance(error, tarfile.OutsideDestinationError):
        return f"{name!r} leaves the folder"
    if isinstance(error, tarfile.SpecialFileError):
        return f"{name!r} is a device or other special file"
    return f"{name!r} is refused: {error}"


@contextlib.contextmanager
def _tar(path: Source, kind: str, limits: ArchiveLimits) -> Iterator[tarfile.TarFile]:
    """The archive as a tar stream, read once from the start, bounded in what it may inflate."""
    if kind not in ("tar", "tar.gz"):
        raise ArchiveRefused(f"unknown archive format {kind!r} (use {', '.join(FORMATS)})")
    budget = limits.unpacked_bytes + (limits.files + 2) * HEADER_ALLOWANCE
    with _opened(path) as raw:
        stream: io.BufferedIOBase | BinaryIO = raw
        if kind == "tar.gz":
            stream = gzip.GzipFile(fileobj=raw, mode="rb")
        try:
            archive = tarfile.open(fileobj=_Bounded(stream, budget, limits), mode="r|")  # noqa: SIM115
        except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
            raise ArchiveRefused(f"not a {kind} archive: {error}") from None
        with archive:
            yield archive


class _Bounded(io.RawIOBase):
    """A stream that refuses to give more than ``budget`` bytes."""

    def __init__(self, inner: io.BufferedIOBase | BinaryIO, budget: int, limits: ArchiveLimits) -> None:
        self.inner, self.left, self.limits = inner, budget, limits

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        wanted = self.left + 1 if size < 0 else min(size, self.left + 1)
        data = self.inner.read(wanted)
        self.left -= len(data)
        if self.left < 0:
            raise ArchiveRefused(f"the archive unpacks to more than {_mib(self.limits.unpacked_bytes)}")
        return data


@contextlib.contextmanager
def _opened(path: Source) -> Iterator[BinaryIO]:
    """The archive open from its start (an open file is rewound, and left open)."""
    if isinstance(path, Path):
        with path.open("rb") as handle:
            yield handle
        return
    path.seek(0)
    yield path


def _zip_members(path: Source, limits: ArchiveLimits) -> list[tuple[zipfile.ZipInfo, tarfile.TarInfo]]:
    """Each zip member and the tar member it becomes, all checked from the central directory."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise ArchiveRefused(f"not a zip archive: {error}") from None
    members = []
    total = 0
    for count, info in enumerate(infos, start=1):
        member = _as_tar_member(info)
        total += info.file_size
        _check_member(member, count, total, limits)
        members.append((info, member))
    return members


def _as_tar_member(info: zipfile.ZipInfo) -> tarfile.TarInfo:
    member = tarfile.TarInfo(info.filename)
    mode = info.external_attr >> 16
    if info.is_dir():
        member.type, member.mode = tarfile.DIRTYPE, 0o755
    elif stat.S_ISLNK(mode):
        # The target is the member's content: a placeholder until it is read (bounded below).
        member.type, member.linkname = tarfile.SYMTYPE, "."
    else:
        member.size = info.file_size
        member.mode = (mode & 0o777) or 0o644
    if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
        member.type = tarfile.FIFOTYPE if stat.S_ISFIFO(mode) else tarfile.CHRTYPE
    return member


@contextlib.contextmanager
def _zip_as_tar(path: Source, limits: ArchiveLimits, beside: Path) -> Iterator[tarfile.TarFile]:
    """The zip's checked members, written as a tar to a temporary file and read back. The file
    is made nameless in ``beside`` (the folder being filled: on disk, where /tmp may be memory)."""
    members = _zip_members(path, limits)
    with tempfile.TemporaryFile(dir=beside) as converted, zipfile.ZipFile(path) as archive:
        with tarfile.open(fileobj=converted, mode="w|") as output:
            for info, member in members:
                try:
                    if member.issym():
                        member.linkname = archive.read(info)[:LINK_BYTES].decode(errors="replace")
                        _check_member(member, 1, 0, limits)
                        output.addfile(member)
                    elif member.isreg():
                        with archive.open(info) as data:
                            output.addfile(member, data)
                    else:
                        output.addfile(member)
                except (zipfile.BadZipFile, zlib.error, OSError, EOFError) as error:
                    raise ArchiveRefused(
                        f"the zip member {info.filename[:80]!r} is damaged: {error}"
                    ) from None
        converted.seek(0)
        with tarfile.open(fileobj=converted, mode="r|") as tar:
            yield tar


def _mib(size: int) -> str:
    return f"{size / 2**20:g} MiB"
