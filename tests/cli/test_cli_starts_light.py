"""The client commands start fast because they import only what they use: `kingmaker ladder`
needs a gRPC stub, the generated messages and a table, not the server, the database layer, the
engines or the website. Importing everything cost `kingmaker ladder` 3.5 s on a loaded machine;
these tests fail when a command pulls one of those back in (they check what is imported, not
how long it takes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import typer.testing
from typer.testing import CliRunner

from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli.plain_values import plain_reader, read_plainly

HEAVY = (
    "sqlalchemy", "sqlmodel", "alembic", "psycopg", "ray", "starlette", "uvicorn", "jinja2", "pydantic",
    "selenium", "hypothesis", "numpy", "matplotlib", "trueskill",
    "kingmaker.games", "kingmaker.sdk", "kingmaker.ladder", "kingmaker.sample_bots",
    "kingmaker.server.app", "kingmaker.server.refereeing.referee", "kingmaker.server.services",
)  # fmt: skip
# A docstring, an enum of end reasons, and the bounds of every number (standard library only).
LIGHT = ("kingmaker.ladder", "kingmaker.ladder.outcomes", "kingmaker.ladder.bounds")

# Runs the command line as `kingmaker` does, and on the way out names the heavy modules loaded
# (client commands end with os._exit, which skips atexit).
PROBE = """
import atexit, os, sys
heavy, light = {heavy!r}, {light!r}
def report():
    loaded = [m for m in sys.modules
              if m not in light and any(m == h or m.startswith(h + ".") for h in heavy)]
    sys.stderr.write("\\nheavy modules loaded: " + " ".join(sorted(loaded)) + "\\n")
atexit.register(report)
exit_now = os._exit
def report_and_exit(status):
    report()
    exit_now(status)
os._exit = report_and_exit
sys.argv = ["kingmaker", *{args!r}]
from kingmaker.server.cli import main
main()
"""


def heavy_modules_of(*args: str) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    ran = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY, light=LIGHT, args=list(args))],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    marker = "heavy modules loaded:"
    assert marker in ran.stderr, ran.stderr
    return ran.stderr.rsplit(marker, 1)[1].split(), ran


@pytest.mark.parametrize("args", [["--help"], ["ladder", "--help"], ["bot", "list", "--help"]])
def test_help_imports_no_heavy_module(args: list[str]) -> None:
    loaded, ran = heavy_modules_of(*args)
    assert ran.returncode == 0, ran.stderr
    assert loaded == []


@pytest.mark.parametrize(
    "args",
    [
        ["ladder", "kingdoms"],
        ["ladder", "kingdoms", "--json"],
        ["bot", "list"],
        ["league", "list"],
        ["match", "list"],
    ],
)
def test_client_commands_import_no_heavy_module(server: BackgroundServer, args: list[str]) -> None:
    loaded, ran = heavy_modules_of(*args, "--server", server.address)
    assert ran.returncode == 0, ran.stderr
    assert loaded == []


def test_every_command_is_listed_with_its_own_summary() -> None:
    """`kingmaker --help` lists the commands without importing them, from a table of summaries:
    each must stay the first paragraph of the command's own help."""
    from kingmaker.server.cli import COMMANDS

    for name, lazy in COMMANDS.items():
        command = lazy.load(name)
        assert command.name == name
        assert lazy.summary == " ".join((command.help or "").split("\n\n")[0].split()), name


def test_a_client_command_that_exits_at_once_keeps_its_output_and_status(server: BackgroundServer) -> None:
    """Client commands end with os._exit, skipping the interpreter's teardown: what they printed
    must all arrive, and a failure must keep its status and its one line."""
    ran = subprocess.run(
        [sys.executable, "-m", "kingmaker", "ladder", "kingdoms", "--json", "--server", server.address],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["game"] == "kingdoms"
    failed = subprocess.run(
        [sys.executable, "-m", "kingmaker", "ladder", "no-such-game", "--server", server.address],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert failed.returncode == 1
    assert failed.stderr.startswith("error:") and len(failed.stderr.strip().splitlines()) == 1


def plain_app() -> typer.Typer:
    """One parameter of every plain kind the commands use."""
    app = typer.Typer()

    @app.command()
    def run(
        name: str = typer.Argument(...),
        count: int = typer.Option(20, min=1, max=1000),
        ratio: float = typer.Option(0.5, min=0.0),
        anything: int = typer.Option(0),
        folder: Path | None = typer.Option(None, exists=True, file_okay=False),
        tag: list[str] = typer.Option([], "--tag"),
        loud: bool = typer.Option(False, "--loud"),
        maybe: str | None = typer.Option(None),
    ) -> None:
        typer.echo(repr((name, count, ratio, anything, folder, tag, loud, maybe)))

    return app


@pytest.mark.parametrize(
    "args",
    [
        ["x"],
        ["x", "--count", "7", "--ratio", "2.25", "--anything", "-3", "--tag", "a", "--tag", "b", "--loud"],
        ["x", "--count", "0"],
        ["x", "--count", "1001"],
        ["x", "--count", "seven"],
        ["x", "--count", " 8 "],
        ["x", "--ratio", "-1"],
        ["x", "--ratio", "half"],
        ["x", "--folder", "."],
        ["x", "--folder", "no-such-folder"],
        ["x", "--folder", "pyproject.toml"],
        ["x", "--maybe", ""],
        ["--help"],
        [],
    ],
)
def test_plain_values_are_read_as_typer_reads_them(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`read_plainly` reads values without pydantic, and exactly as typer does: the same values,
    the same refusals with the same words."""
    runner = CliRunner()
    typers_own = runner.invoke(plain_app(), args)
    plain = typer.main.get_command(plain_app())
    read_plainly(plain)
    monkeypatch.setattr(typer.testing, "_get_command", lambda app: plain)
    ours = runner.invoke(plain_app(), args)
    assert (ours.exit_code, ours.stdout, ours.stderr) == (
        typers_own.exit_code,
        typers_own.stdout,
        typers_own.stderr,
    )


def test_plain_values_cover_every_parameter_of_the_client_commands() -> None:
    from kingmaker.server.cli import COMMANDS

    for name in ("ladder", "bot", "league", "match", "games", "replay"):
        command = COMMANDS[name].load(name)
        for each in [command, *getattr(command, "commands", {}).values()]:
            for param in each.params:
                assert plain_reader(param.type_descriptor) is not None, (name, each.name, param.name)
