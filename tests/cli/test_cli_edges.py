"""Every number the command line takes is checked at the edge, with the admin API's bounds
(``kingmaker.ladder.bounds``): a value out of range is one line and exit code 2, and nothing is
started or stored. Before, `serve --bank-ms 4294967296` started and voided every match ("Value
out of range"), `league create --rounds 99999999999` and `match run --seed 99999999999999999999999`
printed a 35-line traceback, and `serve --web PORT` on a taken port printed 76 lines after the gRPC
server was already up. One test per command family, driving the real command line; and one that
fails for any numeric option of any command that has no bound."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.core import TyperGroup
from typer.testing import CliRunner

from kingmaker.ladder import bounds
from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.ladder.matches.history import list_matches
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import COMMANDS, app

from support import bot_command

runner = CliRunner()
KINGMAKER = [sys.executable, "-m", "kingmaker"]
RANDOM = " ".join(bot_command("random_bot.py"))
STARTS_WITHIN = 120
"""Seconds a refused command has to exit: it exits at once, but the machine is loaded."""


def one_line(code: int, err: str, expected_code: int = 2) -> str:
    """The single error line of a refused command (and its exit code checked)."""
    assert code == expected_code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err
    return lines[0]


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def refused(*args: str) -> str:
    """The one line a command line refused with (exit code 2)."""
    code, _, err = invoke(*args)
    return one_line(code, err)


def run_alone(args: list[str], home: Path) -> tuple[int, str, str]:
    """A command that would start something (a server, a site, a league) run as its own process,
    killed if it does not exit: one that started instead of refusing fails here."""
    environment = {**os.environ, "KINGMAKER_HOME": str(home)}
    environment.pop("KINGMAKER_SERVER", None)
    process = subprocess.Popen(
        [*KINGMAKER, *args], env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        out, err = process.communicate(timeout=STARTS_WITHIN)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"kingmaker {' '.join(args)} started instead of refusing: {out}") from None
    return process.returncode, out, err


# ---- every option of every command -------------------------------------------------------------


def every_option() -> Iterator[tuple[str, Any]]:
    """(command path, parameter) for every parameter of every command, subcommands included."""

    def walk(command: Any, path: str) -> Iterator[tuple[str, Any]]:
        if isinstance(command, TyperGroup):
            for name, sub in command.commands.items():
                yield from walk(sub, f"{path} {name}")
        else:
            for param in command.params:
                yield path, param

    for name, lazy in COMMANDS.items():
        yield from walk(lazy.load(name), name)


def test_every_numeric_option_of_every_command_has_both_bounds() -> None:
    numeric = [
        (path, param.name, param.min, param.max)
        for path, param in every_option()
        if param.type_descriptor.annotation in (int, float)
    ]
    assert len(numeric) > 30, "the walk found the commands' options"
    unbounded = [f"{path} --{name}" for path, name, low, high in numeric if low is None or high is None]
    assert unbounded == [], "give each a min and a max from kingmaker.ladder.bounds"


ADDRESS_OPTIONS = {"server", "address", "host", "web_host", "ray_address"}


def test_every_address_option_of_every_command_is_checked() -> None:
    found = [(path, param) for path, param in every_option() if param.name in ADDRESS_OPTIONS]
    assert len(found) > 20
    unchecked = [f"{path} --{param.name}" for path, param in found if param.callback is None]
    assert unchecked == [], "check each with an address callback of server/cli/common.py"


# ---- serve ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--bank-ms", "4294967296"],
        ["--decision-ms", "99999999999"],
        ["--increment-ms", "4294967296"],
        ["--max-strikes", "100000000"],
        ["--concurrency", "100000000"],
        ["--decision-ms", "0"],
        ["--workers", "100000"],
        ["--connect-timeout", "nan"],
        ["--web", "70000"],
    ],
    ids=lambda args: " ".join(args),
)
def test_serve_refuses_a_number_out_of_bounds_and_starts_nothing(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "home"
    code, out, err = run_alone(["serve", "--address", "127.0.0.1:0", *args], home)
    line = one_line(code, err)
    assert f"'{args[0]}'" in line
    assert out == ""
    assert not home.exists(), "no home, no database, no admin token"


def test_serve_with_the_website_on_a_taken_port_refuses_before_the_referee_starts(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code, out, err = run_alone(["serve", "--address", "127.0.0.1:0", "--web", str(port)], home)
    line = one_line(code, err, expected_code=1)
    assert line.startswith(f"error: cannot serve the website on 127.0.0.1:{port}: Address already in use")
    assert "serving on" not in out
    assert not home.exists(), "the referee never started: no home, no database"


# ---- league -----------------------------------------------------------------------------------


@pytest.fixture
def two_bots(server: BackgroundServer) -> BackgroundServer:
    """The server with two remote bots registered."""
    for name in ("a", "b"):
        code, _, err = invoke("bot", "add", name, "-g", "kingdoms", "--server", server.address)
        assert code == 0, err
    return server


@pytest.mark.parametrize(
    "args",
    [
        ["--rounds", "99999999999"],
        ["--rounds", "1001"],
        ["--format", "ladder", "--max-matches", "4294967295"],
        ["--seed", "99999999999999999999999"],
        ["--seed", str(2**63)],
        ["--players", "4294967296"],
        ["--format", "ladder", "--time-budget", "inf"],
    ],
    ids=lambda args: " ".join(args),
)
def test_league_create_refuses_a_number_out_of_bounds_and_stores_nothing(
    two_bots: BackgroundServer, args: list[str]
) -> None:
    refused(
        "league", "create", "weekly", "-g", "kingdoms", "-b", "a", "-b", "b", *args,
        "--server", two_bots.address,
    )  # fmt: skip
    assert leagues.list_leagues(two_bots.server.db) == []


def test_the_command_line_refuses_what_the_ladder_would_refuse_with_the_same_bound(
    two_bots: BackgroundServer,
) -> None:
    """The highest value the command line lets through is one the ladder accepts."""
    top = str(bounds.ROUNDS.high)
    code, _, err = invoke(
        "league", "create", "most", "-g", "kingdoms", "-b", "a", "-b", "b", "--rounds", top,
        "--server", two_bots.address,
    )  # fmt: skip
    assert code == 0, err
    [league] = leagues.list_leagues(two_bots.server.db)
    assert league.settings["rounds"] == bounds.ROUNDS.high


def test_league_run_and_list_refuse_numbers_out_of_bounds_and_run_nothing(two_bots: BackgroundServer) -> None:
    address = two_bots.address
    code, _, err = invoke("league", "create", "weekly", "-g", "kingdoms", "-b", "a", "-b", "b", "-s", address)
    assert code == 0, err
    refused("league", "run", "weekly", "--concurrency", "100000000", "-s", address)
    refused("league", "list", "--limit", "1001", "-s", address)
    [league] = leagues.list_leagues(two_bots.server.db)
    progress = league_progress(two_bots.server.db, league.id)
    assert {status: count for status, count in progress.items() if count} == {"scheduled": 1}


# ---- match ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--seed", "99999999999999999999999"],
        ["--decision-ms", "4294967296"],
        ["--decision-ms", "600001"],
        ["--seed", "-1"],
    ],
    ids=lambda args: " ".join(args),
)
def test_match_run_refuses_a_number_out_of_bounds_and_plays_nothing(
    server: BackgroundServer, args: list[str]
) -> None:
    refused("match", "run", "kingdoms", "--seat", RANDOM, "--seat", RANDOM, *args, "--server", server.address)
    assert list_matches(server.server.db) == []
    assert server.server.archive.newest(None, 10) == [], "no one-off match was played either"
    refused("match", "list", "--limit", "0", "--server", server.address)


# ---- bot, ladder ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["bot", "list", "--limit", "1001"],
        ["bot", "list", "--limit", "0"],
        ["ladder", "kingdoms", "--offset", "99999999999"],
        ["ladder", "kingdoms", "--limit", "4294967296"],
        ["ladder", "kingdoms", "--top", "21", "--plot", "{plot}"],
    ],
    ids=lambda args: " ".join(args),
)
def test_bot_and_ladder_listings_refuse_numbers_out_of_bounds(
    server: BackgroundServer, tmp_path: Path, args: list[str]
) -> None:
    plot = tmp_path / "ratings.png"
    code, out, err = invoke(*[arg.format(plot=plot) for arg in args], "--server", server.address)
    one_line(code, err)
    assert out == ""
    assert not plot.exists()


# ---- duel, demo, web (local commands) ---------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "99999999999"],
        ["--max-matches", "0"],
        ["--jobs", "0"],
        ["--jobs", "100000"],
        ["--alpha", "0.9"],
        ["--elo1", "1e400"],
        ["--seed", "-5"],
    ],
    ids=lambda args: " ".join(args),
)
def test_duel_refuses_a_number_out_of_bounds_and_plays_nothing(args: list[str]) -> None:
    code, out, err = invoke("duel", "random", "random", "-g", "kingdoms", *args)
    one_line(code, err)
    assert out == "", "not a match played"


@pytest.mark.parametrize(
    "args",
    [["demo", "--rounds", "0"], ["demo", "--rounds", "99999999999"], ["demo", "--seed", "-1"]],
    ids=lambda args: " ".join(args),
)
def test_demo_refuses_a_number_out_of_bounds_and_starts_nothing(tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "demo-home"
    code, out, err = run_alone([*args, "--home", str(home)], tmp_path / "home")
    one_line(code, err)
    assert out == ""
    assert not home.exists()


def test_web_refuses_a_port_out_of_range_and_serves_nothing(tmp_path: Path) -> None:
    code, out, err = run_alone(["web", "--port", "65536"], tmp_path / "home")
    assert "'--port'" in one_line(code, err)
    assert out == ""


# ---- bot add: an empty command is a mistake, not a remote bot ---------------------------------


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("", "the command is empty"),
        ("   ", "the command is empty"),
        ("''", "the program (its first word) of the command is empty"),
        (f"{sys.executable} ''", "word 2 of the command is empty"),
    ],
    ids=["empty", "blank", "empty-program", "empty-argument"],
)
def test_bot_add_with_an_empty_command_is_refused_not_registered_as_remote(
    server: BackgroundServer, command: str, message: str
) -> None:
    code, _, err = invoke("bot", "add", "mine", "-g", "kingdoms", "-c", command, "--server", server.address)
    assert message in one_line(code, err, expected_code=1)
    assert bots.list_bots(server.server.db) == []


def test_a_remote_bot_is_registered_with_remote_or_without_a_command(server: BackgroundServer) -> None:
    for name, extra in (("explicit", ["--remote"]), ("implicit", [])):
        code, out, err = invoke("bot", "add", name, "-g", "kingdoms", *extra, "--server", server.address)
        assert code == 0, err
        assert f"registered remote bot {name}" in out
    both = ["bot", "add", "both", "-g", "kingdoms", "--remote", "-c", RANDOM]
    line = refused(*both, "--server", server.address)
    assert "managed (--command) or remote (--remote), not both" in line
    assert [bot.name for bot in bots.list_bots(server.server.db)] == ["explicit", "implicit"]
