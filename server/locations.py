"""Where a server listens and keeps its files unless told otherwise.

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


def home_lock_path() -> Path:
    """The lock a running server holds on its home (``server.home.HomeLock``)."""
    return home_directory() / "server.lock"


def server_coming_up(address: str) -> bool:
    """Whether a live server holds this home and listens, or is about to, on ``address``: a
    command run right after `kingmaker serve &` then waits for it rather than give up."""
    try:
        descriptor = os.open(home_lock_path(), os.O_RDONLY)
    except OSError:
        return False
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:  # held: a server is running on this home
            said = json.loads(os.pread(descriptor, 4096, 0) or b"{}")
            return bool(said.get("address") in ("starting", address))
        fcntl.flock(descriptor, fcntl.LOCK_UN)
        return False  # nobody holds it: a server that has stopped
    except (OSError, ValueError, AttributeError):
        return False
    finally:
        os.close(descriptor)
