"""The ``kingmaker`` command line: one module per command group, wired together here."""

from __future__ import annotations

from importlib.metadata import version

import typer

from kingmaker.server.cli import bots, bridge, demo, duel, games, ladder, leagues, matches, replay, serve, web
from kingmaker.server.cli.readable import readable_command

app = typer.Typer(
    name="kingmaker",
    help="A tournament server for game-playing bots: referee matches, run leagues, read the ladder.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("demo")(demo.demo)
app.command("serve")(serve.serve)
app.command("games")(games.games)
app.command("bridge")(bridge.bridge)
app.add_typer(matches.app, name="match")
app.add_typer(bots.app, name="bot")
app.add_typer(leagues.app, name="league")
app.command("ladder")(ladder.ladder)
app.command("replay")(replay.replay)
app.command("web")(web.web)
app.command("duel")(duel.duel)


def version_callback(value: bool) -> None:
    if value:
        typer.echo(f"kingmaker {version('kingmaker')}")
        raise typer.Exit()


@app.callback()
def top_level(
    show_version: bool = typer.Option(
        False, "--version", callback=version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """A tournament server for game-playing bots: referee matches, run leagues, read the ladder."""


def main() -> None:
    readable_command(app)(prog_name="kingmaker")
