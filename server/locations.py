"""Where a server listens and keeps its files unless told otherwise, and the hold `serve` takes
on its home before it imports the server (``claim_home``).

Standard library only: the command line reads these on every start, and importing the server
itself (the referee, the services, the database layer) would cost it most of a second."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

DEFAULT_ADDRESS = "127.0.0.1:50051"


def home_directory() -> Path:
    """Where the server keeps its database and admin token: $KINGMAKER_HOME or ./.kingmaker."""
    return Path(os.environ.get("KINGMAKER_HOME", ".kingmaker"))


def admin_token_path() -> Path:
    return home_directory() / "admin-token"


def default_database_url() -> str:
    """$KINGMAKER_DATABASE_URL, or an SQLite file in the server's home directory."""
    return os.environ.get("KINGMAKER_DATABASE_URL") or f"sqlite:///{home_directory() / 'kingmaker.db'}"


def admin_socket_path() -> Path:
    """The admin lane's Unix socket (``services.lane``): in the home, which only its user enters."""
    return home_directory() / "admin.sock"


def home_lock_path() -> Path:
    """The lock a running server holds on its home (``server.home.HomeLock``)."""
    return home_directory() / "server.lock"


_claimed: dict[str, int] = {}
"""Home locks this process took early (``claim_home``) that its server has not adopted yet."""


def claim_home() -> None:
    """Take this home's lock now, marked "starting", for the server to adopt (``adopt_claim``)
    when it takes its home: `kingmaker serve` does this before importing the server, which on a
    loaded machine takes longer than a command run right after `kingmaker serve &` waits for a
    server that is not there (``server_coming_up`` makes it wait for one that is starting). A
    home that cannot be taken is left alone: the server says why when it takes it."""
    path = os.path.abspath(home_lock_path())
    if path in _claimed:
        return
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, json.dumps({"pid": os.getpid(), "address": "starting"}).encode(), 0)
    except OSError:
        os.close(descriptor)
        return
    _claimed[path] = descriptor


def adopt_claim(path: Path) -> int | None:
    """The descriptor holding ``path``'s lock that ``claim_home`` took, now the caller's, or None."""
    return _claimed.pop(os.path.abspath(path), None)


def drop_claims() -> None:
    """Let go of the locks ``claim_home`` took that no server adopted (it failed to start)."""
    while _claimed:
        os.close(_claimed.popitem()[1])


def _live_record() -> dict[str, object] | None:
    """What the live server holding this home's lock recorded, or None when none holds it."""
    try:
        descriptor = os.open(home_lock_path(), os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:  # held: a server is running on this home
            said = json.loads(os.pread(descriptor, 4096, 0) or b"{}")
            return said if isinstance(said, dict) else None
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return None  # nobody holds it: a server that has stopped
    except (OSError, ValueError):
        return None
    finally:
        os.close(descriptor)


LOCAL = "local"
"""What ``--server`` and $KINGMAKER_SERVER take for this machine's own server, whoever the
command line is logged in to (``local_address``)."""


def local_address() -> str:
    """The server of this home (`kingmaker serve` run here): the address its lock records, else
    where `serve` listens by default. A kit's local play names it (``--server local``), so an
    author logged in to a club's server still plays on their own machine."""
    said = _live_record()
    address = said.get("address") if said is not None else None
    return address if isinstance(address, str) and address != "starting" else DEFAULT_ADDRESS


def server_coming_up(address: str) -> bool:
    """Whether a live server holds this home and listens, or is about to, on ``address``: a
    command run right after `kingmaker serve &` then waits for it rather than give up."""
    said = _live_record()
    return said is not None and said.get("address") in ("starting", address)


def admin_lane(address: str) -> str | None:
    """The admin lane (``unix:`` its socket) of the live server of this home listening on
    ``address``, or None: a command run where `serve` runs talks to it there, where its calls do
    not wait behind the bots' (``services.lane``)."""
    said = _live_record()
    if said is None or said.get("address") != address:
        return None
    lane = said.get("lane")
    return lane if isinstance(lane, str) else None
