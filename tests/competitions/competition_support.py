"""The competition stories' common steps: three authors with a Python bot each, commands run as
they would type them, and the server's competition clock moved by the test."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from submission_bots import python_bot
from typer.testing import CliRunner

from kingmaker.ladder.competitions.competition_clock import set_offset
from kingmaker.server.cli import app

runner = CliRunner()
AUTHORS = ("ann", "ben", "cat")
WAIT_S = 300.0
"""Generous: builds run in the jail and matches on a machine shared with other tests."""


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def ok(*args: str) -> str:
    code, out, err = cli(*args)
    assert code == 0, f"{args}: {out}{err}"
    return out


def token_in(printed: str) -> str:
    return next(word for word in printed.split() if word.startswith("km_"))


def add_authors(address: str, admin_token: str) -> dict[str, list[str]]:
    """The three authors; per author (and "admin"), the options their commands carry."""
    options = {"admin": ["--server", address, "--token", admin_token]}
    for name in AUTHORS:
        out = ok("author", "add", name, *options["admin"])
        options[name] = ["--server", address, "--token", token_in(out)]
    return options


def submit(folder: Path, bot: str, choice: str, options: list[str], wait: bool = True) -> int:
    """Submit a version of a Python bot (``choice`` makes each version's code its own); its number."""
    follow = "--wait" if wait else "--no-wait"
    out = ok("submit", str(python_bot(folder, choice)), "--bot", bot, "-g", "kingdoms", follow, *options)
    number = int(out.split(f"{bot} version ", 1)[1].split()[0])
    assert not wait or f"{bot} version {number} is active" in out, out
    return number


def submit_side_by_side(versions: list[tuple[Path, str, str, list[str]]]) -> list[int]:
    """``submit`` several authors' versions (folder, bot, choice, options) without waiting, then
    wait until each is active: the server builds and validates different authors' side by side."""
    numbers = [submit(*version, wait=False) for version in versions]
    mine = [(bot, number, options) for (_, bot, _, options), number in zip(versions, numbers, strict=True)]

    def all_active() -> bool:
        return all(version_status(*each) == "active" for each in mine)

    wait_for("the versions to be active", all_active, every=1.0)  # (each takes seconds)
    return numbers


def version_status(bot: str, number: int, options: list[str]) -> str:
    """Its status (`bot builds`); one that can no longer become active fails the test at once."""
    listed = json.loads(ok("bot", "builds", bot, "--json", *options))["versions"]
    (version,) = [version for version in listed if version["number"] == number]
    status = str(version["status"])
    assert status not in ("build_failed", "rejected", "retired"), version
    return status


def status(name: str, options: list[str]) -> dict[str, Any]:
    return json.loads(ok("competition", "status", name, "--json", *options))  # type: ignore[no-any-return]


def wait_for(what: str, check: Callable[[], Any], timeout: float = WAIT_S, every: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"waited {timeout:.0f} s for {what}"
        time.sleep(every)


def move_clock(clock_file: Path, hours: float) -> None:
    set_offset(clock_file, hours * 3600)
