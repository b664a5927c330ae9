"""Opening the ladder database: URL checks, SQLite settings, one short transaction per call.

The URL comes from the argument, else ``KINGMAKER_DATABASE_URL``, else ``sqlite:///kingmaker.db``
(a file in the working directory). Any SQLAlchemy URL works if its driver is installed.

SQLite is set up for one server process calling from several worker threads:

- WAL journal, so readers never wait for the writer;
- a 30 s busy timeout, so a writer waits for another instead of failing;
- foreign keys on (SQLite leaves them off by default);
- a write transaction (``transaction()``) starts with ``BEGIN IMMEDIATE``: it takes the write lock
  up front, so two threads that both read and then write serialise cleanly instead of one failing
  with "database is locked" when it tries to upgrade its read lock;
- a read transaction (``read()``) starts with a plain ``BEGIN``: under WAL it reads a snapshot and
  never takes the write lock, so however long a read runs, no writer waits for it;
- a write's commit waits until the disk has it (``synchronous=FULL``), except a transaction opened
  with ``transaction(flushed=False)`` (``synchronous=NORMAL``, set on the connection only when it
  changes): see ``transaction``.

PostgreSQL (``postgresql://...``, driven by psycopg 3) is set up for several server processes:

- a write transaction is READ COMMITTED, and every write that reads-then-writes shared rows locks
  them first (``SELECT ... FOR UPDATE``, in one order everywhere: league, match, ratings by bot id,
  ladder rows (``leaguebot``), bots by id; see ``matches.finish_match``, and
  ``tests/ladder/test_ladder_lock_order.py``, which checks every writer of a bot's rows against
  it), so two matches of one bot finishing at once both count;
- a read transaction is REPEATABLE READ and READ ONLY: one snapshot for the whole read (as SQLite's
  WAL gives), which under MVCC never blocks a writer nor waits for one;
- ``transaction(flushed=False)`` commits with ``synchronous_commit`` off (``SET LOCAL``);
- a transaction that PostgreSQL still aborts as a deadlock or serialization failure is retried by
  ``retrying`` (the server's ``until_stored`` also retries whatever the database refused for now).

A bad URL raises ``DatabaseUrlError`` before anything is created: the file's folder must exist and
be writable, and a non-SQLite server must answer a connection.
"""

from __future__ import annotations

import functools
import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy.engine import URL, Dialect
from sqlalchemy.exc import ArgumentError, DBAPIError, DisconnectionError, NoSuchModuleError, OperationalError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session

from kingmaker.ladder.errors import DatabaseUrlError

URL_VARIABLE = "KINGMAKER_DATABASE_URL"
DEFAULT_URL = "sqlite:///kingmaker.db"
SQLITE_BUSY_TIMEOUT_S = 30
READ_ONLY_OPTION = "kingmaker_read_only"
"""Execution option marking the connections of read transactions (see ``Database.read``)."""
UNFLUSHED_OPTION = "kingmaker_unflushed"
"""Execution option marking the connections of transactions whose commit need not wait for the
disk (see ``Database.transaction``)."""
_SYNCHRONOUS = "kingmaker_synchronous"
"""Where an SQLite connection's record keeps the ``synchronous`` level it was last set to."""
POSTGRES_CONNECT_TIMEOUT_S = 10
"""How long opening a PostgreSQL connection may take (unless the URL says ``connect_timeout``)."""
POSTGRES_DRIVER = "postgresql+psycopg"
"""The driver a bare ``postgresql://`` (or ``postgres://``) URL gets: psycopg 3, a dependency."""
CONFLICT_SQLSTATES = frozenset({"40001", "40P01"})
"""PostgreSQL's serialization failure and deadlock: the transaction was rolled back; run it again."""
CONFLICT_TRIES = 5

P = ParamSpec("P")
T = TypeVar("T")


class Database:
    """An open ladder database. Thread-safe: every ``transaction()`` uses its own session."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        reading: dict[str, Any] = {READ_ONLY_OPTION: True}
        if engine.dialect.name == "postgresql":
            reading |= {"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}
        self._reader = engine.execution_options(**reading)
        self._unflushed = engine.execution_options(**{UNFLUSHED_OPTION: True})

    @property
    def url(self) -> str:
        return shown_url(self.engine.url)

    @contextmanager
    def transaction(self, *, flushed: bool = True) -> Iterator[Session]:
        """A session in one write transaction: committed if the block ends normally, else rolled
        back.

        ``flushed=False`` is for what a restart redoes anyway (a match's claim and its result: a
        match left *running* or *scheduled* is played again): its commit returns once the
        database has the transaction, before the disk does. The server process crashing loses
        none of it; the machine losing power may lose the last such commits, never one made
        before a flushed commit (both databases write their log in order, and a flushed commit
        waits for all of it), and never half of one."""
        bind = self.engine if flushed else self._unflushed
        with Session(bind, expire_on_commit=False) as session, session.begin():
            yield session

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session in one read transaction, which never blocks a writer (nor waits for one).
        Writing through it is a bug: SQLite would then take the write lock mid-transaction, and
        PostgreSQL refuses it (the transaction is READ ONLY)."""
        with Session(self._reader, expire_on_commit=False) as session, session.begin():
            yield session

    def upgrade(self) -> None:
        """Bring the schema to the newest alembic revision (creating it in an empty database)."""
        from kingmaker.ladder.storage.migrate import upgrade

        upgrade(self.engine)

    def close(self) -> None:
        self.engine.dispose()


def open_database(
    url: str | None = None, *, upgrade: bool = True, busy_timeout_s: float = SQLITE_BUSY_TIMEOUT_S
) -> Database:
    """Open (and by default migrate) the database at ``url``; ``DatabaseUrlError`` if it is bad.
    ``busy_timeout_s``: how long an SQLite writer waits for another before failing."""
    text = url if url is not None else os.environ.get(URL_VARIABLE) or DEFAULT_URL
    parsed = _parse(text)
    is_sqlite = parsed.get_backend_name() == "sqlite"
    engine = _sqlite_engine(parsed, busy_timeout_s) if is_sqlite else _server_engine(parsed)
    database = Database(engine)
    if upgrade:
        try:
            database.upgrade()
        except DBAPIError as error:
            engine.dispose()
            raise DatabaseUrlError(f"cannot use database {shown_url(parsed)}: {_first_line(error)}") from None
    return database


def retrying(work: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``work(...)``, run again (a few times, after a short random pause) when PostgreSQL rolled
    its transaction back as a deadlock or serialization failure. ``work`` must open its own
    transaction, so that each try starts afresh."""
    for attempt in range(1, CONFLICT_TRIES + 1):
        try:
            return work(*args, **kwargs)
        except OperationalError as error:
            if attempt == CONFLICT_TRIES or getattr(error.orig, "sqlstate", None) not in CONFLICT_SQLSTATES:
                raise
            time.sleep(random.uniform(0, 0.01 * 2**attempt))
    raise AssertionError("unreachable")


def _parse(text: str) -> URL:
    try:
        parsed = make_url(text)
    except ArgumentError:
        raise DatabaseUrlError(f"not a database URL: {text!r}") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername=POSTGRES_DRIVER)
    try:
        parsed.get_dialect()
    except NoSuchModuleError:
        raise DatabaseUrlError(f"unknown database dialect {parsed.drivername!r} in {text!r}") from None
    return parsed


def _sqlite_engine(url: URL, busy_timeout_s: float) -> Engine:
    database = url.database
    in_memory = not database or database == ":memory:"
    if not in_memory:
        _check_sqlite_path(Path(str(database)), url)
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_s},
        # An in-memory database exists only inside one connection: share that one connection.
        poolclass=StaticPool if in_memory else None,
    )
    event.listen(engine, "connect", functools.partial(_configure_sqlite_connection, busy_timeout_s))
    event.listen(engine, "begin", _begin_immediate)
    return engine


def _check_sqlite_path(path: Path, url: URL) -> None:
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise DatabaseUrlError(f"cannot open {shown_url(url)}: folder {str(folder)!r} does not exist")
    if path.is_dir():
        raise DatabaseUrlError(f"cannot open {shown_url(url)}: {str(path)!r} is a folder")
    target = path if path.exists() else folder
    if not os.access(target, os.W_OK):
        raise DatabaseUrlError(f"cannot open {shown_url(url)}: {str(target)!r} is not writable")


def _configure_sqlite_connection(busy_timeout_s: float, dbapi_connection: Any, record: Any) -> None:
    # Let SQLAlchemy's "begin" event issue BEGIN itself (see _begin_immediate).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=FULL")  # said, not left to how SQLite was built
    finally:
        cursor.close()
    record.info[_SYNCHRONOUS] = "FULL"


def _begin_immediate(connection: Any) -> None:
    options = connection.get_execution_options()
    if options.get(READ_ONLY_OPTION, False):
        connection.exec_driver_sql("BEGIN")
        return
    # Set between transactions (SQLite refuses it inside one), and only when it changes: the
    # database thread runs claims and results, unflushed, one after the other.
    wanted = "NORMAL" if options.get(UNFLUSHED_OPTION, False) else "FULL"
    info = connection.connection.info
    if info.get(_SYNCHRONOUS) != wanted:
        connection.exec_driver_sql(f"PRAGMA synchronous={wanted}")
        info[_SYNCHRONOUS] = wanted
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def _commit_unflushed(connection: Any) -> None:
    """PostgreSQL: this transaction's commit does not wait for the disk (``SET LOCAL`` ends with it)."""
    if connection.get_execution_options().get(UNFLUSHED_OPTION, False):
        connection.exec_driver_sql("SET LOCAL synchronous_commit TO OFF")


def _server_engine(url: URL) -> Engine:
    connect_args: dict[str, Any] = {}
    if url.get_backend_name() == "postgresql" and "connect_timeout" not in url.query:
        connect_args["connect_timeout"] = POSTGRES_CONNECT_TIMEOUT_S
    try:
        engine = create_engine(url, connect_args=connect_args)
    except ImportError as error:
        raise DatabaseUrlError(
            f"no driver for {url.drivername!r} is installed ({_first_line(error)})"
        ) from None
    except ArgumentError as error:
        raise DatabaseUrlError(f"bad database URL {shown_url(url)}: {_first_line(error)}") from None
    if url.get_backend_name() == "postgresql":
        event.listen(engine, "begin", _commit_unflushed)
    event.listen(engine.pool, "checkin", _note_checkin)
    event.listen(engine.pool, "checkout", functools.partial(_ping_if_idle, engine.dialect))
    try:
        with engine.connect():
            pass
    except DBAPIError as error:
        engine.dispose()
        raise DatabaseUrlError(f"cannot connect to {shown_url(url)}: {_first_line(error)}") from None
    return engine


PING_AFTER_IDLE_S = 1.0
"""A pooled connection idle longer than this is pinged before it is handed out (a server that
restarted, or a network that dropped it, would otherwise fail its first statement). One in steady
use is not: a ping per transaction was a round trip more per claim and per result."""
_CHECKED_IN = "kingmaker_checked_in"


def _note_checkin(_dbapi_connection: Any, record: Any) -> None:
    record.info[_CHECKED_IN] = time.monotonic()


def _ping_if_idle(dialect: Dialect, dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    since = record.info.get(_CHECKED_IN)
    if since is None or time.monotonic() - since < PING_AFTER_IDLE_S:
        return  # new, or in steady use
    try:
        alive = dialect.do_ping(dbapi_connection)  # as pool_pre_ping pings: outside a transaction
    except Exception as error:
        raise DisconnectionError(f"the pooled connection is gone: {error}") from error
    if not alive:  # gone: the pool opens another (and drops the older ones)
        raise DisconnectionError("the pooled connection is gone")


def shown_url(url: URL) -> str:
    """A database URL as kingmaker shows it everywhere (start line, errors, refusals): password hidden."""
    return url.render_as_string(hide_password=True)


def _first_line(error: BaseException) -> str:
    original = getattr(error, "orig", None) or error
    lines = str(original).strip().splitlines()
    return lines[0] if lines else type(original).__name__
