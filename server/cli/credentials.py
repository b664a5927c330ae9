"""Where ``kingmaker login`` keeps a server address and token: standard library only, as every
command reads it."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Login:
    server: str
    token: str


def config_folder() -> Path:
    """``$XDG_CONFIG_HOME/kingmaker``, or ``~/.config/kingmaker``."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "kingmaker"


def login_path() -> Path:
    return config_folder() / "login.json"


def load_login() -> Login | None:
    """The stored login, or None when there is none (or it cannot be read as one)."""
    try:
        data = json.loads(login_path().read_text())
        return Login(server=str(data["server"]), token=str(data["token"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_login(login: Login) -> None:
    """Write the login readable by its user only: the folder 0700, the file 0600, replaced whole."""
    folder = config_folder()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    partial = folder / f".login.{os.getpid()}.tmp"
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump({"server": login.server, "token": login.token}, handle)
    os.replace(partial, login_path())


def forget_login() -> bool:
    """Remove the stored login; whether there was one."""
    try:
        login_path().unlink()
    except FileNotFoundError:
        return False
    return True
