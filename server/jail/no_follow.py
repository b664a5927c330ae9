"""Walking a folder a stranger filled without ever following a link in it.

What an author's archive or build leaves (``archive_step``, in the jail) may hold links pointing
anywhere on the host, chains of them longer than PATH_MAX, or a second name of a file. The host
only ever reads such a folder through these functions: each entry is looked at with ``lstat``
from an open descriptor of its own folder (so no path is resolved twice and none is too long),
every file and folder is opened with ``O_NOFOLLOW`` and changed through that descriptor
(``fchmod``, ``fchown``), a link's owner is changed on the link itself, and a file with a second
name (a hard link, which could be a host file's) is refused, never opened.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from kingmaker.server.jail.folder_bound import FolderBound, FolderCount

NO_FOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


class FolderRefused(ValueError):
    """The folder holds what the host will not keep (a hard link, a special file); one line."""


def entries(folder: Path) -> Iterator[tuple[int, str, os.stat_result, str]]:
    """``(folder descriptor, name, lstat, relative path)`` of every entry under ``folder``, in
    ``tree_hash`` order: a folder's entries sorted, then each real subfolder's, depth first.
    Links (to folders too) are entries, never walked into."""
    top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | NO_FOLLOW)
    try:
        yield from _entries(top, "")
    finally:
        os.close(top)


def _entries(descriptor: int, prefix: str) -> Iterator[tuple[int, str, os.stat_result, str]]:
    names = sorted(os.listdir(descriptor))
    infos = [os.stat(name, dir_fd=descriptor, follow_symlinks=False) for name in names]
    for name, info in zip(names, infos, strict=True):
        yield descriptor, name, info, prefix + name
    for name, info in zip(names, infos, strict=True):
        if stat.S_ISDIR(info.st_mode):
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | NO_FOLLOW, dir_fd=descriptor)
            try:
                yield from _entries(inner, prefix + name + "/")
            finally:
                os.close(inner)


@contextlib.contextmanager
def opened(descriptor: int, name: str, info: os.stat_result) -> Iterator[int]:
    """The entry ``name`` (a file or folder, as ``info`` saw it) opened without following a link,
    and checked to be the very file ``info`` describes."""
    flags = os.O_RDONLY | NO_FOLLOW | (os.O_DIRECTORY if stat.S_ISDIR(info.st_mode) else 0)
    handle = os.open(name, flags, dir_fd=descriptor)
    try:
        now = os.fstat(handle)
        if (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
            raise FolderRefused(f"{name[:80]!r} changed while it was read")
        yield handle
    finally:
        os.close(handle)


def check_entry(relative: str, info: os.stat_result) -> None:
    """Refuse what a kept folder may not hold: special files, and files with a second name."""
    mode = info.st_mode
    if stat.S_ISREG(mode) and info.st_nlink > 1:
        raise FolderRefused(f"{relative[:80]!r} is a hard link (a second name of a file)")
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
        raise FolderRefused(f"{relative[:80]!r} is a device or other special file")


def make_read_only(folder: Path) -> None:
    """Check every entry, give it to the server's user (a jailed step's user id is handed out
    again later) and make it read-only for all, executable where its owner could run it."""
    uid, gid = os.getuid(), os.getgid()
    for descriptor, name, info, relative in entries(folder):
        check_entry(relative, info)
        if stat.S_ISLNK(info.st_mode):
            os.chown(name, uid, gid, dir_fd=descriptor, follow_symlinks=False)
            continue
        with opened(descriptor, name, info) as handle:
            os.fchown(handle, uid, gid)
            executable = stat.S_ISDIR(info.st_mode) or info.st_mode & 0o100
            os.fchmod(handle, 0o555 if executable else 0o444)
    top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | NO_FOLLOW)
    try:
        os.fchown(top, uid, gid)
        os.fchmod(top, 0o555)
    finally:
        os.close(top)


def open_folders(folder: Path) -> None:
    """Make every folder under ``folder`` writable by its owner again, so it can be removed."""
    with contextlib.suppress(OSError):
        top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | NO_FOLLOW)
        try:
            os.fchmod(top, 0o755)
        finally:
            os.close(top)
        for descriptor, name, info, _relative in entries(folder):
            if stat.S_ISDIR(info.st_mode):
                with opened(descriptor, name, info) as handle:
                    os.fchmod(handle, 0o755)


def tree_hash(folder: Path) -> str:
    """SHA-256 of a folder's paths, kinds, executable bits, link targets and file contents."""
    digest = hashlib.sha256()
    for descriptor, name, info, relative in entries(folder):
        if stat.S_ISLNK(info.st_mode):
            entry = f"L {relative}\0{os.readlink(name, dir_fd=descriptor)}"
        elif stat.S_ISDIR(info.st_mode):
            entry = f"D {relative}"
        else:
            check_entry(relative, info)
            executable = "x" if info.st_mode & 0o100 else "-"
            with opened(descriptor, name, info) as handle, os.fdopen(handle, "rb", closefd=False) as data:
                content = hashlib.file_digest(data, "sha256").hexdigest()
            entry = f"F {relative}\0{executable}\0{content}"
        digest.update(entry.encode(errors="surrogateescape") + b"\n")
    return digest.hexdigest()


def lexists_inside(folder: Path, relative: str) -> bool | None:
    """Whether ``relative`` names an entry of ``folder``, going down only through real folders;
    None when a folder on the way is a link (the host does not look where it points)."""
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        return None
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | NO_FOLLOW)
    try:
        for index, part in enumerate(parts):
            try:
                info = os.stat(part, dir_fd=descriptor, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if index == len(parts) - 1:
                return True
            if stat.S_ISLNK(info.st_mode):
                return None
            if not stat.S_ISDIR(info.st_mode):
                return False
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | NO_FOLLOW, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
        return True
    finally:
        os.close(descriptor)


def count_tree(folder: Path, bound: FolderBound) -> int:
    """``folder``'s apparent size, walked as ``copy_tree`` walks it; past ``bound``: ``FolderTooBig``."""
    count = FolderCount(bound)
    for _descriptor, _name, info, _relative in entries(folder):
        count.add(0 if stat.S_ISDIR(info.st_mode) else info.st_size)
    return count.bytes


def copy_tree(source: Path, destination: Path, bound: FolderBound | None = None) -> int:
    """Copy ``source`` into ``destination`` (made here, must not exist) without following a link
    in it: links are copied as links, each file read through a descriptor opened ``O_NOFOLLOW``,
    a hard link or special file refused (``FolderRefused``). A file's holes stay holes (a sparse
    file never becomes memory on a tmpfs), and ``source`` is counted as it is walked: past
    ``bound`` the copy stops (``FolderTooBig``). The copy is the server's and read-only, as
    ``make_read_only`` leaves a kept folder; its apparent size (what ``bound`` counted)."""
    count = FolderCount(bound or FolderBound(0, 0))
    folders = [destination]
    os.mkdir(destination, 0o700)
    for descriptor, name, info, relative in entries(source):
        check_entry(relative, info)
        count.add(0 if stat.S_ISDIR(info.st_mode) else info.st_size)
        target = destination / relative
        if stat.S_ISLNK(info.st_mode):
            os.symlink(os.readlink(name, dir_fd=descriptor), target)
        elif stat.S_ISDIR(info.st_mode):
            os.mkdir(target, 0o700)
            folders.append(target)
        else:
            executable = info.st_mode & 0o100
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW
            with opened(descriptor, name, info) as handle:
                written = os.open(target, flags, 0o555 if executable else 0o444)
                try:
                    copy_keeping_holes(handle, written, info.st_size)
                finally:
                    os.close(written)
    for folder in reversed(folders):  # (opened for writing last, so a non-root server can fill them)
        os.chmod(folder, 0o555)
    return count.bytes


def copy_keeping_holes(source: int, destination: int, size: int) -> None:
    """The first ``size`` bytes of ``source`` (its length as counted: a file grown since is cut
    there) into the empty ``destination``: only its data is copied, its holes are left holes."""
    offset = 0
    while offset < size:
        try:
            start = os.lseek(source, offset, os.SEEK_DATA)
        except OSError as error:
            if error.errno == errno.ENXIO:  # only a hole is left
                break
            raise
        end = min(os.lseek(source, start, os.SEEK_HOLE), size)
        os.lseek(destination, start, os.SEEK_SET)
        while start < end:
            step = os.sendfile(destination, source, start, end - start)
            if step == 0:  # (the file shrank since it was counted)
                break
            start += step
        offset = max(end, start)
    os.ftruncate(destination, size)
