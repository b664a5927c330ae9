"""The ``kingmaker`` command line: one module per command group, wired together here."""

from __future__ import annotations

import typer

from kingmaker.server.cli import bridge, demo, games, matches, serve

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


def main() -> None:
    app()
