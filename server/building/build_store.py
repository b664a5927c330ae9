"""Where submissions and built folders are kept on the host, each under its SHA-256.

- ``BlobStore``: submitted archives, as sent, named by their hash (``HOME/blobs``). A blob is
  written under a temporary name and renamed into place only once the archive passed its checks,
  so a refused archive leaves nothing. Blobs are never shown in any jail.
- ``BuildStore``: built folders, named by the hash of their contents (``HOME/builds/HASH``),
  read-only, readable by every user (a bot runs as a user of its own) and shown to a bot at
  ``/bot``. A build writes its folder from the jail into an empty folder of the store
  (``incoming``); the host keeps it without following any link in it (``keep``). Worker
  processes on this machine read them here; a Ray node keeps a store of its own, filled from
  ``pack`` once per hash and unpacked in the jail (``add_packed``).
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

from kingmaker.server.building.jailed_unpack import StepFailed, unpack_built_in_jail
from kingmaker.server.building.submission_archive import ArchiveRefused
from kingmaker.server.jail.folder_bound import FolderBound, FolderTooBig
from kingmaker.server.jail.no_follow import (
    FolderRefused,
    copy_tree,
    count_tree,
    make_read_only,
    open_folders,
    tree_hash,
)
from kingmaker.server.jail.sandbox import SandboxPolicy

__all__ = ["BlobStore", "BuildOutputRefused", "BuildStore", "tree_hash"]


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
    def __init__(self, root: Path, sandbox: SandboxPolicy | None = None) -> None:
        self.root = root
        self.sandbox = sandbox or SandboxPolicy()
        """The jail a packed folder from another server is unpacked in (``add_packed``)."""

    def path(self, build_hash: str) -> Path:
        return self.root / build_hash

    def has(self, build_hash: str) -> bool:
        return self.path(build_hash).is_dir()

    def incoming(self, near: Path | None = None) -> Path:
        """A fresh empty folder for a jailed step to fill (then ``keep``): in ``near`` (the
        server's run folder, on a tmpfs, so the jail's mountinfo does not show the home's path;
        ``keep`` then copies it in), else in the store."""
        self.root.mkdir(mode=0o755, parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".incoming-", dir=near or self.root))

    def discard(self, incoming: Path) -> None:
        """Remove a folder a step filled that is not kept (without following a link in it)."""
        _remove(incoming)

    def keep(self, incoming: Path, bound: FolderBound | None = None) -> str:
        """Keep a folder a jailed step filled (``incoming``); its hash. It is read without
        following any link in it (``no_follow``), made read-only and the server's, and renamed
        into place; a hard link or special file in it, or more than ``bound`` (its apparent size,
        its entries), is refused (``BuildOutputRefused``)."""
        filled = incoming
        try:
            try:
                if incoming.parent != self.root:  # (filled in the run folder: copied in first)
                    incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=self.root))
                    incoming.rmdir()
                    copy_tree(filled, incoming, bound)
                elif bound is not None:
                    count_tree(incoming, bound)
                build_hash = tree_hash(incoming)
                target = self.path(build_hash)
                if target.is_dir():
                    return build_hash  # the same build was kept before
                _read_only(incoming)
            except (FolderRefused, FolderTooBig) as error:
                raise BuildOutputRefused(f"the build left {error}") from None
            try:
                os.replace(incoming, target)
            except OSError:
                # Another writer kept the same folder first (two matches on one Ray node, or two
                # nodes on one machine, unpack one build at once): theirs is ours.
                if not target.is_dir():
                    raise
            return build_hash
        finally:
            for folder in {filled, incoming}:
                if folder.exists():
                    _remove(folder)

    def pack(self, build_hash: str) -> bytes:
        """The built folder as a gzipped tar (sent to a Ray node once per hash). The folder is the
        store's own, read-only; ``tarfile`` adds links as links (it never follows one)."""
        buffer = io.BytesIO()
        folder = self.path(build_hash)
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for entry in sorted(os.listdir(folder)):
                archive.add(folder / entry, arcname=entry)
        return buffer.getvalue()

    def add_packed(self, build_hash: str, data: bytes) -> Path:
        """Keep a folder ``pack`` made elsewhere, unpacked in the jail; refused if its contents
        do not have that hash."""
        if not self.has(build_hash):
            incoming = self.incoming()
            try:
                unpack_built_in_jail(data, incoming, self.sandbox)
            except (ArchiveRefused, StepFailed) as error:
                _remove(incoming)
                raise BuildOutputRefused(f"the packed folder {build_hash[:12]} is refused: {error}") from None
            found = self.keep(incoming)
            if found != build_hash:
                raise BuildOutputRefused(f"the packed folder {build_hash[:12]} unpacked as {found[:12]}")
        return self.path(build_hash)


def _read_only(folder: Path) -> None:
    make_read_only(folder)


def _remove(folder: Path) -> None:
    open_folders(folder)
    shutil.rmtree(folder, ignore_errors=True)
