"""The ``kingmaker`` command line: one module per command group, wired together here.

A command's module is imported only when that command runs (see ``lazy``): add a command to
``COMMANDS`` with where it lives and its one-line summary.

Commands reach a running server through its gRPC services, and start one through ``app`` and
``background``. Two reach below the services, each for a reason (``.importlinter`` lists them):
``serve`` builds the server's configuration from its options (the executors, the clock, how long
a busy bot is waited for), and ``replay`` ranks a replayed match's scores as the referee does."""

from __future__ import annotations

import typer

from kingmaker.server.cli.lazy import LazyCommand, LazyCommands, exit_now
from kingmaker.server.cli.plain_values import read_plainly
from kingmaker.server.cli.readable import readable_command

COMMANDS = {
    "demo": LazyCommand(
        "demo:demo",
        "Start a server, register the sample bots, run a small league of every game, print the standings.",
        exits_at_once=False,
    ),
    "serve": LazyCommand(
        "serve:serve",
        "Start the referee server (loopback by default) and serve until Ctrl-C or SIGTERM.",
        exits_at_once=False,
    ),
    "games": LazyCommand("games:games", "List the games, their player counts and their match options."),
    "bridge": LazyCommand(
        "bridge:bridge",
        "Connect to the server as a bot and let COMMAND play: it reads one JSON request per line on "
        'stdin and writes one JSON reply per line on stdout (see docs/protocol.md, "The JSON bridge"). '
        "Exits as COMMAND did (its code, or its signal); SIGTERM leaves after the match in play.",
        exits_at_once=False,
    ),
    "play-policy": LazyCommand(
        "play_policy:play_policy",
        "Connect to the server as a bot that plays GAME with POLICY, a function trained in "
        "kingmaker.envs (docs/rl.md): policy(observation, action_mask) -> slot, or with --openspiel "
        "a factory of pyspiel.Bot.",
        exits_at_once=False,
    ),
    "ladder": LazyCommand(
        "ladder:ladder",
        "A game's standings, best conservative rating (mu - 3 sigma) first; optionally a rating plot.",
    ),
    "replay": LazyCommand(
        "replay:replay",
        "Step through a stored match, re-run by the engine, printing each move and the scores.",
    ),
    "web": LazyCommand(
        "web:web",
        "Serve the standings, bots, leagues and match replays as a website (read-only) until Ctrl-C.",
        exits_at_once=False,
    ),
    "duel": LazyCommand(
        "duel:duel",
        "Play A against B in duplicate matches until the SPRT decides or --max-matches runs out.",
        exits_at_once=False,
    ),
    "submit": LazyCommand(
        "submit:submit",
        "Submit a new version of a bot (a folder or an archive): built and validated by the server.",
    ),
    "prune": LazyCommand(
        "prune:prune",
        "Remove the archives and built folders of old versions retention does not keep "
        "(--dry-run: say which).",
    ),
    "play": LazyCommand(
        "play:play",
        "Play a seat of GAME against registered bots in the terminal: a text board and numbered actions.",
        exits_at_once=False,
    ),
    "match": LazyCommand("matches:app", "Run a match through the server, or show a stored one."),
    "bot": LazyCommand("bots:app", "Register and manage bots."),
    "author": LazyCommand(
        "authors:app", "Register authors (the people who own bots) and manage them. Admin only."
    ),
    "login": LazyCommand(
        "login:login",
        "Check an author's (or the admin's) token with the server and keep both for later commands.",
    ),
    "logout": LazyCommand("login:logout", "Forget the stored login."),
    "whoami": LazyCommand(
        "login:whoami", "Say who the server takes you for, with the token the commands would send."
    ),
    "init": LazyCommand(
        "init:init",
        "Write a starter bot: a random bot for every game in LANG, its kingmaker.toml (with the games "
        "it plays) and a README that says how to build it, play it against the sample bots and submit it.",
    ),
    "doctor": LazyCommand(
        "doctor:doctor",
        "Say which languages this server can build bots in now (each toolchain is found and a "
        "trivial program built with it), and for each of the others the apt-get line that installs it.",
    ),
    "league": LazyCommand("leagues:app", "Create, run and follow leagues."),
    "competition": LazyCommand(
        "competitions:app", "Competitions: a deadline, frozen versions, finals and a winner."
    ),
}


class KingmakerCommands(LazyCommands):
    commands_to_load = COMMANDS


app = typer.Typer(
    name="kingmaker",
    help="A tournament server for game-playing bots: referee matches, run leagues, read the ladder.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=KingmakerCommands,
)


def version_callback(value: bool) -> None:
    if value:
        from importlib.metadata import version

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
    command = readable_command(app)
    read_plainly(command)  # --version; each command's own when it is loaded (``lazy``)
    try:
        command(prog_name="kingmaker")  # ends by raising SystemExit
    except SystemExit as done:
        ran = command.resolved  # None: only help, --version or a usage error, nothing to stop
        if ran is None or ran.exits_at_once:
            exit_now(done.code)
        raise
