"""A throwaway PostgreSQL server for the tests: its own cluster in a temporary folder, listening on
127.0.0.1 (a free port) and on a Unix socket in that folder, stopped and deleted at the end.

PostgreSQL refuses to run as root, so as root the cluster belongs to the ``postgres`` system user
(Debian's package creates it) and its programs run through ``runuser``. The binaries are found in
``$KINGMAKER_TEST_POSTGRES_BIN``, else with ``pg_config --bindir``, else in the newest
``/usr/lib/postgresql/*/bin``.

Durability is switched off (``fsync``, ``synchronous_commit``, ``full_page_writes``): the data
lives as long as one test session, and a test must not wait for a disk.

Each test gets an empty migrated database (``new_database``): a copy of a template migrated once
(much cheaper than running the migrations per test), or one a finished test gave back
(``give_back``), emptied with TRUNCATE (cheaper still than a copy, and the cluster stays small).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
from psycopg import sql

from kingmaker.ladder.storage.db import open_database

from support import free_port

SUPERUSER = "kingmaker"
BINDIR_VARIABLE = "KINGMAKER_TEST_POSTGRES_BIN"
START_TIMEOUT_S = 30


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server could be started here (no binaries, or no user to run them as)."""


def find_bindir() -> Path:
    """The folder of initdb and pg_ctl (``$KINGMAKER_TEST_POSTGRES_BIN`` if set), or PostgresUnavailable."""
    chosen = os.environ.get(BINDIR_VARIABLE)
    if chosen:
        if (Path(chosen) / "initdb").exists() and (Path(chosen) / "pg_ctl").exists():
            return Path(chosen)
        raise PostgresUnavailable(f"no initdb and pg_ctl in ${BINDIR_VARIABLE} ({chosen})")
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        output = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=False)
        if output.returncode == 0:
            candidates.append(Path(output.stdout.strip()))
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name or 0))
    candidates += [Path(path) for path in reversed(versions)]
    for folder in candidates:
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    raise PostgresUnavailable("no PostgreSQL server binaries (initdb, pg_ctl): apt-get install postgresql")


class PostgresServer:
    """One running cluster; ``url(database)`` gives SQLAlchemy URLs into it."""

    def __init__(self) -> None:
        self.bindir = find_bindir()
        self._owner = self._cluster_owner()
        self.folder = Path(tempfile.mkdtemp(prefix="kingmaker-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self._started = False

    def start(self) -> None:
        if self._owner is not None:
            os.chown(self.folder, self._owner.pw_uid, self._owner.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--no-sync")
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        log = str(self.folder / "server.log")
        timeout = str(START_TIMEOUT_S)
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "-t", timeout, "start")
        self._started = True

    def stop(self) -> None:
        """Stop the server (fast: open connections are cut) and delete its folder."""
        try:
            if self._started:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            self._started = False
            shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        # The form a user writes, and the one ``.ci/postgres`` gives: the server adds its driver.
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def log_tail(self, lines: int = 20) -> str:
        with contextlib.suppress(OSError):
            return "\n".join((self.folder / "server.log").read_text().splitlines()[-lines:])
        return ""

    def _cluster_owner(self) -> pwd.struct_passwd | None:
        if os.geteuid() != 0:
            return None
        try:
            return pwd.getpwnam("postgres")
        except KeyError:
            raise PostgresUnavailable(
                "running as root and there is no 'postgres' user to run PostgreSQL as"
            ) from None

    def _run(self, program: str, *args: str) -> None:
        argv = [str(self.bindir / program), *args]
        if self._owner is not None:
            argv = ["runuser", "-u", self._owner.pw_name, "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=self.folder)
        if done.returncode != 0:
            output = (done.stderr or done.stdout).strip()
            raise PostgresUnavailable(f"{program} failed ({done.returncode}): {output}\n{self.log_tail()}")


class Databases:
    """Fresh databases in one PostgreSQL server (started here, or one given by URL), each a copy
    of a template migrated once to the newest schema."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url
        self._prefix = f"kingmaker_test_{os.getpid()}"
        self._template = f"{self._prefix}_template"
        self._numbers = itertools.count(1)
        self._made: list[str] = []
        self._free: list[str] = []

    def new_database(self) -> str:
        """The SQLAlchemy URL of a new, migrated, empty database."""
        if self._free:
            return self._url(self._free.pop())
        if not self._made:
            self._create(self._template)
            open_database(self._url(self._template)).close()  # migrated, then every connection closed
        name = f"{self._prefix}_{next(self._numbers)}"
        self._create(name, template=self._template)
        return self._url(name)

    def empty_database(self) -> str:
        """The URL of a new database with no schema at all (for the migration tests)."""
        name = f"{self._prefix}_{next(self._numbers)}"
        self._create(name)
        return self._url(name)

    def give_back(self, url: str) -> None:
        """A test is done with this database: empty it for the next one (or drop it, if a
        connection someone left open holds a lock on it)."""
        name = url.rsplit("/", 1)[1]
        conninfo = self._url(name).replace("postgresql+psycopg://", "postgresql://", 1)
        try:
            with psycopg.connect(conninfo, autocommit=True, connect_timeout=10) as connection:
                tables = [
                    row[0]
                    for row in connection.execute(
                        "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                        " AND tablename <> 'alembic_version'"
                    )
                ]
                connection.execute("SET lock_timeout = '2s'")
                if tables:
                    names = sql.SQL(", ").join(sql.Identifier(table) for table in tables)
                    connection.execute(sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(names))
        except psycopg.Error:
            self.drop(url)
            return
        self._free.append(name)

    def drop(self, url: str) -> None:
        """Drop one database made here (its open connections are cut)."""
        name = url.rsplit("/", 1)[1]
        self._admin(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if name in self._made:
            self._made.remove(name)
        if name in self._free:
            self._free.remove(name)

    def drop_all(self) -> None:
        """Drop every database made here (needed on a server that outlives the tests)."""
        for name in reversed(list(self._made)):
            self.drop(self._url(name))

    def _create(self, name: str, template: str | None = None) -> None:
        statement = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
        if template is not None:
            statement += sql.SQL(" TEMPLATE {}").format(sql.Identifier(template))
        self._admin(statement)
        self._made.append(name)

    def _url(self, database: str) -> str:
        base, _, _ = self.admin_url.rpartition("/")
        return f"{base}/{database}"

    def _admin(self, statement: sql.Composable) -> None:
        conninfo = self.admin_url.replace("postgresql+psycopg://", "postgresql://", 1)
        with psycopg.connect(conninfo, autocommit=True, connect_timeout=10) as connection:
            connection.execute(statement)


@contextlib.contextmanager
def running_postgres() -> Iterator[str]:
    """A started server's admin URL until the block ends; the server is always stopped."""
    server = PostgresServer()
    try:
        server.start()
        yield server.url()
    finally:
        server.stop()
