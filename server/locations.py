"""Where a server listens and keeps its files unless told otherwise.

Standard library only: the command line reads these on every start, and importing the server
itself (the referee, the services, the database layer) would cost it most of a second."""

from __future__ import annotations

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
