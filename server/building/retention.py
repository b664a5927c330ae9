"""Retention on the host: remove the archives and built folders of pruned versions.

The ladder chooses and marks the versions (``ladder/storage/retention.py``); this removes their files
from the server's own stores, ``HOME/blobs/HASH`` and ``HOME/builds/HASH``, and nothing else. A
built folder holds a stranger's files and links: it is removed with ``shutil.rmtree`` (which
never follows a link, it unlinks it), after making its folders writable one by one with ``lstat``
first, so a link in it is never followed to a folder of the host. Runs after every version's way
ends (for that bot) and when a submission would pass its author's bytes bound, and on demand
(``kingmaker prune``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from kingmaker.ladder.storage import retention
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.retention import PrunedFiles
from kingmaker.server.building.build_store import BlobStore, BuildStore

log = logging.getLogger("kingmaker.server")
HASH_CHARS = 64


@dataclass
class Retention:
    db: Database
    blobs: BlobStore
    builds: BuildStore
    keep: int = retention.DEFAULT_KEEP

    def __post_init__(self) -> None:
        self.lock = asyncio.Lock()
        """Held while files are removed, and while a new archive or build joins the stores, so
        a file is never removed just as a new version comes to share it."""

    async def prune(
        self, bot: str | None = None, author_id: int | None = None, dry_run: bool = False
    ) -> PrunedFiles:
        async with self.lock:
            pruned = await asyncio.to_thread(self._mark, bot, author_id, dry_run)
            if not dry_run:
                await asyncio.to_thread(self._remove, pruned)
        if (pruned.versions or pruned.trial_matches) and not dry_run:
            log.info(
                "pruned %d versions and %d trial matches (%s)",
                len(pruned.versions),
                pruned.trial_matches,
                bot or "every bot",
            )
        return pruned

    def _mark(self, bot: str | None, author_id: int | None, dry_run: bool) -> PrunedFiles:
        with self.db.transaction() as session:
            return retention.prune(session, self.keep, bot, author_id, dry_run)

    def _remove(self, pruned: PrunedFiles) -> None:
        for digest in pruned.archives:
            if _is_hash(digest):
                self.blobs.path(digest).unlink(missing_ok=True)
        for digest in pruned.builds:
            if _is_hash(digest):
                remove_store_folder(self.builds.path(digest))


def remove_store_folder(folder: Path) -> None:
    """Remove a built folder of the server's store: read-only folders are made writable first,
    each checked with ``lstat`` (a link is never chmod-ed: that would follow it), then
    ``shutil.rmtree``, which unlinks links rather than follow them."""
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            folder.unlink(missing_ok=True)
            return
    except FileNotFoundError:
        return
    os.chmod(folder, 0o700)
    for parent, folders, _files in os.walk(folder):  # os.walk never enters a link to a folder
        for name in folders:
            path = os.path.join(parent, name)
            if stat.S_ISDIR(os.lstat(path).st_mode):
                os.chmod(path, 0o700)
    shutil.rmtree(folder)


def folder_bytes(folder: Path) -> int:
    """The sizes of a folder's files added up (links and folders by their own size), by lstat."""
    total = 0
    for parent, folders, files in os.walk(folder):
        for name in folders + files:
            total += os.lstat(os.path.join(parent, name)).st_size
    return total


def _is_hash(digest: str) -> bool:
    return len(digest) == HASH_CHARS and all(char in "0123456789abcdef" for char in digest)
