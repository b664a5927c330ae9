"""The server's home: the folder of its secrets (database, admin token), held by one server at a
time, and never shown to a bot.

Two servers on one home would share one database and void each other's matches: the second
found the first's one-off match "running" and voided it within seconds. So a server takes an
exclusive lock on ``server.lock`` in its home before it opens anything, and keeps it for its
life; the kernel drops the lock when the process ends, however it ends, so a killed server
never leaves a stale lock behind. The lock file says who holds it (pid and address), for the
refusal. An SQLite database kept outside the home gets the same lock beside it.

Two homes may name one PostgreSQL database, too; so the server holds that database as well
(``hold_database``): a session advisory lock, on a connection of its own kept for the server's
life. PostgreSQL drops the lock when that connection ends, however the server ends. The
connection's ``application_name`` says who holds it, for the refusal.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool

from kingmaker.ladder.storage.db import shown_url
from kingmaker.server.locations import adopt_claim, home_lock_path

LOCK_NAME = home_lock_path().name
DATABASE_LOCK_KEY = 0x6B696E676D616B72
"""The advisory lock a server holds on its PostgreSQL database ("kingmakr"); locks are per database."""
HOLDER_PREFIX = "kingmaker: "


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
        self._database: tuple[Engine, Connection] | None = None

    def acquire(self) -> None:
        """Take every lock, or none: ``HomeInUse`` names the server that holds one."""
        try:
            for path, what in self.locks:
                adopted = adopt_claim(path)  # (taken early by `kingmaker serve`)
                if adopted is not None:
                    self._held.append(adopted)
                    continue
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

    def hold_database(self, engine: Engine) -> None:
        """Hold a PostgreSQL database as the home is held, or raise ``HomeInUse`` naming the
        server that holds it (an SQLite file is held by ``acquire``; other databases are not)."""
        if engine.dialect.name != "postgresql":
            return
        holder = create_engine(engine.url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
        try:
            connection = holder.connect()
            try:
                _say_holder(connection, "starting")
                if not connection.execute(
                    text("SELECT pg_try_advisory_lock(:key)"), {"key": DATABASE_LOCK_KEY}
                ).scalar():
                    raise HomeInUse(
                        f"another kingmaker server ({_database_holder(connection)}) is using the database "
                        f"{shown_url(engine.url)}: stop it first, "
                        "or give this server a database of its own (--database-url)"
                    )
            except BaseException:
                connection.close()
                raise
        except BaseException:
            holder.dispose()
            raise
        self._database = (holder, connection)

    def record(self, address: str, lane: str | None = None) -> None:
        """Say in the lock files (and the database hold) who holds them, for a second server's
        refusal, and where its admin lane listens, for the local command line."""
        said = json.dumps(
            {"pid": os.getpid(), "address": address, **({"lane": lane} if lane else {})}
        ).encode()
        for descriptor in self._held:
            os.ftruncate(descriptor, 0)
            os.pwrite(descriptor, said, 0)
        if self._database is not None:
            with contextlib.suppress(SQLAlchemyError):  # the lock stands; only its label is late
                _say_holder(self._database[1], address)

    def release(self) -> None:
        for descriptor in self._held:
            with contextlib.suppress(OSError):
                os.close(descriptor)  # closing the file drops its lock
        self._held = []
        if self._database is not None:
            holder, connection = self._database
            self._database = None
            with contextlib.suppress(SQLAlchemyError):
                # Unlocked by a statement: the session's end drops the lock too, but the backend
                # ends it after the close has returned, and a server started next could be refused.
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": DATABASE_LOCK_KEY})
            with contextlib.suppress(SQLAlchemyError):
                connection.close()
            holder.dispose()


def _holder(descriptor: int) -> str:
    try:
        said = json.loads(os.pread(descriptor, 4096, 0) or b"{}")
        return f"pid {int(said['pid'])}, listening on {said['address']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "pid unknown"


def _say_holder(connection: Connection, address: str) -> None:
    # PostgreSQL keeps 63 bytes of a name: a long address is cut, the pid never.
    name = f"{HOLDER_PREFIX}pid {os.getpid()}, listening on {address}"
    connection.execute(text("SELECT set_config('application_name', :name, false)"), {"name": name})


def _database_holder(connection: Connection) -> str:
    """Who holds the database's lock, as its session named itself (``_say_holder``)."""
    found = connection.execute(
        text(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 "
            "AND l.classid::bigint = :high AND l.objid::bigint = :low "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        ),
        {"high": DATABASE_LOCK_KEY >> 32, "low": DATABASE_LOCK_KEY & 0xFFFFFFFF},
    ).scalar()
    if isinstance(found, str) and found.startswith(HOLDER_PREFIX):
        return found.removeprefix(HOLDER_PREFIX)
    return "pid unknown"


def _inside(path: Path, folder: Path) -> bool:
    return path.absolute().is_relative_to(folder.absolute())
