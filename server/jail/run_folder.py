"""The server's own temporary files, in one folder per running server.

Everything a server makes outside its database goes in ``/dev/shm/kingmaker-run-XXXX/``: the Unix
socket its launched bots connect through, each bot's working folder (with the copy of its built
folder the jail shows), a build's unpacked submission and the folder it fills (a bot's stderr
is a file in memory, ``memory_files.memory_file``). It is on a tmpfs so that a jailed bot learns no host
path from its ``/proc/self/mountinfo``: a bind mount shows there by its source's path within the
source's file system, and within ``/dev/shm`` that is ``/kingmaker-run-XXXX/...``, not where the
folder is. Where ``/dev/shm`` is no writable tmpfs with ``SHARED_MEMORY_NEEDED`` free (a
container's is often 64 MiB) the folder is made in ``$TMPDIR`` (or ``/tmp``) as before, and
mountinfo then shows its path, never the home's (docs/security.md).

The folder holds a ``pid`` file. A server that stops removes its folder; one that
was killed cannot, so every server at start-up removes the folders of servers that are no longer
running (their pid is gone), and leaves those of live servers alone.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import time
from pathlib import Path

PREFIX = "kingmaker-run-"

log = logging.getLogger("kingmaker.server")


def make_run_folder() -> Path:
    """A fresh folder for this server's temporary files, after clearing dead servers' ones."""
    temporary = Path(tempfile.gettempdir())
    for root in (SHARED_MEMORY, temporary):  # (where this or an earlier server made them)
        if root.is_dir():
            remove_stale_run_folders(root)
    place = SHARED_MEMORY if _writable_tmpfs(SHARED_MEMORY) else temporary
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=place))
    # Bots outside the jail run as users of their own and must reach their folders and the
    # socket in it; they may not list it (each bot's folder is 0700 and its own).
    folder.chmod(0o711)
    (folder / "pid").write_text(str(os.getpid()))
    return folder


SHARED_MEMORY = Path("/dev/shm")
SHARED_MEMORY_NEEDED = 2 * 1024**3
"""Free room ``/dev/shm`` must have to hold run folders: a built folder's copy per running bot
(at most a build's disk quota, 1 GiB, its holes kept; counted against the bot's memory limit)
and a build's folders at once."""


def _writable_tmpfs(folder: Path) -> bool:
    """Whether run folders go in ``folder``: a tmpfs this server may write, with room enough."""
    try:
        room = os.statvfs(folder)
    except OSError:
        return False
    if not os.access(folder, os.W_OK | os.X_OK) or room.f_bavail * room.f_frsize < SHARED_MEMORY_NEEDED:
        log.info("run folders go in the temporary folder: %s is not writable or too small", folder)
        return False
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return False
    types = {fields[1]: fields[2] for fields in (line.split() for line in mounts) if len(fields) > 2}
    return types.get(str(folder)) == "tmpfs"


def remove_stale_run_folders(root: Path | None = None) -> list[Path]:
    """Remove the run folders whose server is gone; the folders removed."""
    removed = []
    for folder in (root or Path(tempfile.gettempdir())).glob(PREFIX + "*"):
        if folder.is_dir() and not _server_alive(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    if removed:
        log.info("removed %d temporary folders of servers that had stopped", len(removed))
    return removed


def _server_alive(folder: Path) -> bool:
    try:
        pid = int((folder / "pid").read_text())
    except (OSError, ValueError):
        # No pid yet: a server may be making it this very moment; leave a young folder alone.
        with contextlib.suppress(OSError):
            return folder.stat().st_mtime > time.time() - 60
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
