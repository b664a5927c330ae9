"""The server's own temporary files, in one folder per running server.

Everything a server makes outside its database goes in ``/tmp/kingmaker-run-XXXX/`` (or under
``$TMPDIR``): the Unix socket its launched bots connect through, each bot's working folder and
its stderr file. The folder holds a ``pid`` file. A server that stops removes its folder; one that
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
    remove_stale_run_folders()
    folder = Path(tempfile.mkdtemp(prefix=PREFIX))
    # Bots outside the jail run as users of their own and must reach their folders and the
    # socket in it; they may not list it (each bot's folder is 0700 and its own).
    folder.chmod(0o711)
    (folder / "pid").write_text(str(os.getpid()))
    return folder


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
