"""Where submissions and built folders are kept on the host, each under its SHA-256.

- ``BlobStore``: submitted archives, as sent, named by their hash (``HOME/blobs``). A blob is
  written under a temporary name and renamed into place only once the archive passed its checks,
  so a refused archive leaves nothing. Blobs are never shown in any jail.
- ``BuildStore``: built folders, named by the hash of their contents (``HOME/builds/HASH``),
  read-only, readable by every user (a bot runs as a user of its own) and shown to a bot at
  ``/bot``. Worker processes on this machine read them here; a Ray node keeps a store of its own,
  filled from ``pack`` once per hash (``add_packed``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
from pathlib import Path


class BuildOutputRefused(ValueError):
    """What a build left in its folder cannot be kept (a link out of it); one line."""


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def incoming(self) -> Path:
        """A fresh temporary file in the store's folder, to receive an archive into."""
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, name = tempfile.mkstemp(prefix=".incoming-", dir=self.root)
        os.close(descriptor)
        return Path(name)

    def keep(self, received: Path, sha256: str) -> Path:
        """Keep a checked archive under its hash (a second copy of the same archive is one blob)."""
        target = self.path(sha256)
        os.replace(received, target)
        return target

    def path(self, sha256: str) -> Path:
        return self.root / sha256


class BuildStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, build_hash: str) -> Path:
        return self.root / build_hash

    def has(self, build_hash: str) -> bool:
        return self.path(build_hash).is_dir()

    def add_tar(self, tar_path: Path) -> str:
        """Keep the folder a build wrote as a tar; its hash. Every member goes through the
        ``data`` extraction filter (a link out of the folder is refused)."""
        with tarfile.open(tar_path, mode="r:") as archive:
            return self._add(archive)

    def pack(self, build_hash: str) -> bytes:
        """The built folder as a gzipped tar (sent to a Ray node once per hash)."""
        buffer = io.BytesIO()
        folder = self.path(build_hash)
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for entry in sorted(os.listdir(folder)):
                archive.add(folder / entry, arcname=entry)
        return buffer.getvalue()

    def add_packed(self, build_hash: str, data: bytes) -> Path:
        """Keep a folder ``pack`` made elsewhere; refused if its contents do not have that hash."""
        if not self.has(build_hash):
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
                found = self._add(archive)
            if found != build_hash:
                raise BuildOutputRefused(f"the packed folder {build_hash[:12]} unpacked as {found[:12]}")
        return self.path(build_hash)

    def _add(self, archive: tarfile.TarFile) -> str:
        self.root.mkdir(mode=0o755, parents=True, exist_ok=True)
        incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.root))
        try:
            try:
                archive.extractall(incoming, filter="data")
            except tarfile.FilterError as error:
                raise BuildOutputRefused(f"the build left {error}") from None
            _open_to_every_user(incoming)
            build_hash = tree_hash(incoming)
            target = self.path(build_hash)
            if target.is_dir():
                return build_hash  # the same build was kept before
            _read_only(incoming)
            try:
                os.replace(incoming, target)
            except OSError:
                # Another writer kept the same folder first (two matches on one Ray node, or two
                # nodes on one machine, unpack one build at once): theirs is ours.
                if not target.is_dir():
                    raise
            return build_hash
        finally:
            if incoming.exists():
                _remove(incoming)


def tree_hash(folder: Path) -> str:
    """SHA-256 of a folder's paths, kinds, executable bits, link targets and file contents."""
    digest = hashlib.sha256()
    for parent, folders, files in os.walk(folder):
        folders.sort()
        for name in sorted(folders + files):
            path = os.path.join(parent, name)
            relative = os.path.relpath(path, folder)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                entry = f"L {relative}\0{os.readlink(path)}"
            elif stat.S_ISDIR(info.st_mode):
                entry = f"D {relative}"
            else:
                executable = "x" if info.st_mode & 0o100 else "-"
                entry = f"F {relative}\0{executable}\0{_file_hash(path)}"
            digest.update(entry.encode(errors="surrogateescape") + b"\n")
    return digest.hexdigest()


def open_to_build_user(folder: Path) -> None:
    """Make a folder readable (and its folders enterable) by a build's own user."""
    _open_to_every_user(folder)


def _file_hash(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _open_to_every_user(folder: Path) -> None:
    """Readable by all; executable by all where the owner may execute; folders enterable."""
    folder.chmod(0o755)
    for parent, folders, files in os.walk(folder):
        for name in folders:
            os.chmod(os.path.join(parent, name), 0o755)
        for name in files:
            path = os.path.join(parent, name)
            mode = os.lstat(path).st_mode
            if not stat.S_ISLNK(mode):
                os.chmod(path, 0o755 if mode & 0o100 else 0o644)


def _read_only(folder: Path) -> None:
    for parent, folders, files in os.walk(folder, topdown=False):
        for name in files:
            path = os.path.join(parent, name)
            mode = os.lstat(path).st_mode
            if not stat.S_ISLNK(mode):
                os.chmod(path, stat.S_IMODE(mode) & ~0o222)
        for name in folders:
            os.chmod(os.path.join(parent, name), 0o555)
    folder.chmod(0o555)


def _remove(folder: Path) -> None:
    with contextlib.suppress(OSError):
        for parent, folders, _files in os.walk(folder):
            for name in folders:
                os.chmod(os.path.join(parent, name), 0o755)
        folder.chmod(0o755)
    shutil.rmtree(folder, ignore_errors=True)
