"""Outside the jail, a root server gives a bot a user of its own only where that user could run
it: the program and every folder on the way to it open to other users. A script runs the program
its "#!" line names, so that one counts too: a `kingmaker` script of a virtualenv under /root
(mode 0700) named a Python its own user could not start, and the bot failed with "Permission
denied" where it should have run as the server's user, said loudly."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from kingmaker.server.jail import bot_users
from kingmaker.server.jail.bot_users import closed_to_others


@pytest.fixture
def open_folder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder every user may pass through (pytest's own are root's alone), and no other path
    judged beside the bot's: only the script and its interpreter are looked at."""
    folder = Path(tempfile.mkdtemp(prefix="kingmaker-interpreter-", dir="/tmp"))
    folder.chmod(0o755)
    monkeypatch.setattr(bot_users, "code_paths", lambda: ())
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def script(folder: Path, first_line: str) -> Path:
    path = folder / "bot"
    path.write_text(f"{first_line}\nprint('hello')\n")
    path.chmod(0o755)
    return path


def closed_python(folder: Path) -> Path:
    """A 'Python' inside a folder open to nobody else, as a virtualenv under /root is."""
    private = folder / "private"
    (private / "bin").mkdir(parents=True)
    python = private / "bin" / "python3"
    python.write_text("")
    python.chmod(0o755)
    private.chmod(0o700)
    return python


def test_a_script_whose_interpreter_is_closed_to_others_is_closed(open_folder: Path) -> None:
    python = closed_python(open_folder)
    bot = script(open_folder, f"#!{python} -u")
    assert closed_to_others([str(bot)], None) == (open_folder / "private", str(python))


def test_a_script_through_env_is_judged_by_the_program_env_finds(
    open_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = closed_python(open_folder)
    monkeypatch.setenv("PATH", str(python.parent))
    bot = script(open_folder, "#!/usr/bin/env python3")
    assert closed_to_others([str(bot)], None) == (open_folder / "private", str(python))


def test_a_script_whose_interpreter_is_open_is_open(open_folder: Path) -> None:
    assert closed_to_others([str(script(open_folder, "#!/bin/sh"))], None) is None
    assert closed_to_others([str(script(open_folder, "no interpreter line"))], None) is None
