"""The server's home: the folder of its secrets (database, admin token), held by one server at a
time, and never shown to a bot.

Two servers on one home would share one database and void each other's matches: the second
found the first's one-off match "running" and voided it within seconds. So a server takes an
exclusive lock on ``server.lock`` in its home before it opens anything, and keeps it for its
life; the kernel drops the lock when the process ends, however it ends, so a killed server
never leaves a stale lock behind. The lock file says who holds it (pid and address), for the
refusal. An SQLite database kept outside the home gets the same lock beside it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path

from sqlalchemy.engine import make_url

from kingmaker.server.locations import home_lock_path

LOCK_NAME = home_lock_path().name


class HomeInUse(RuntimeError):
    """Another live server holds this home (or this SQLite database)."""


def secret_paths(home: Path, database_url: str) -> list[str]:
    """What a bot must never see: the home, and an SQLite database file (with its journal files)
    wherever it is."""
    paths = [str(home.absolute())]
    database = sqlite_file(database_url)
    if database is not None:
        paths += [str(database), *(f"{database}{suffix}" for suffix in ("-wal", "-shm", "-journal"))]
    return paths


def sqlite_file(database_url: str) -> Path | None:
    """The file of an SQLite database URL (None for another database or an in-memory one)."""
    try:
        url = make_url(database_url)
    except Exception:  # a bad URL is reported by the database layer, in its own words
        return None
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    return Path(url.database).absolute()


class HomeLock:
    """The exclusive hold of one server on its home (and on an SQLite file outside it)."""

    def __init__(self, home: Path, database_url: str) -> None:
        self.locks = [(home / LOCK_NAME, f"home {home}")]
        database = sqlite_file(database_url)
        if database is not None and not _inside(database, home):
            self.locks.append((database.with_name(database.name + ".lock"), f"database {database}"))
        self._held: list[int] = []

    def acquire(self) -> None:
        """Take every lock, or none: ``HomeInUse`` names the server that holds one."""
        try:
            for path, what in self.locks:
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = _holder(descriptor)
                    os.close(descriptor)
                    raise HomeInUse(
                        f"another kingmaker server ({holder}) is using the {what}: stop it first, "
                        "or give this server a home of its own (KINGMAKER_HOME)"
                    ) from None
                self._held.append(descriptor)
        except BaseException:
            self.release()
            raise
        self.record(address="starting")

    def record(self, address: str) -> None:
        """Say in the lock files who holds them, for a second server's refusal."""
        text = json.dumps({"pid": os.getpid(), "address": address}).encode()
        for descriptor in self._held:
            os.ftruncate(descriptor, 0)
            os.pwrite(descriptor, text, 0)

    def release(self) -> None:
        for descriptor in self._held:
            with contextlib.suppress(OSError):
                os.close(descriptor)  # closing the file drops its lock
        self._held = []


def _holder(descriptor: int) -> str:
    try:
        said = json.loads(os.pread(descriptor, 4096, 0) or b"{}")
        return f"pid {int(said['pid'])}, listening on {said['address']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "pid unknown"


def _inside(path: Path, folder: Path) -> bool:
    return path.absolute().is_relative_to(folder.absolute())
