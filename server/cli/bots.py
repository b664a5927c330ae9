"""``kingmaker bot``: register bots (checked by starting them), look at them, change, disable,
reinstate or remove them, rotate their tokens."""

from __future__ import annotations

import shlex
from datetime import UTC, datetime
from pathlib import Path

import typer

from kingmaker.ladder import bounds
from kingmaker.server.cli.common import (
    ServerOption,
    TokenOption,
    admin_client,
    console,
    errors,
    fail,
    require_game,
)
from kingmaker.server.cli.output import JsonOption, as_data, print_json, print_table, table
from kingmaker.server.cli.paths import CommandError, resolve_command, resolve_workdir
from kingmaker.server.cli.seat_logs import print_seat_log
from kingmaker.server.cli.trials import trials
from kingmaker.server.cli.versions import build_log, builds, rollback
from kingmaker.v1 import admin_pb2

app = typer.Typer(help="Register and manage bots.", no_args_is_help=True)
app.command("builds")(builds)
app.command("build-log")(build_log)
app.command("rollback")(rollback)
app.command("trials")(trials)


@app.command("add")
def add(
    name: str = typer.Argument(..., help="A unique name: letters, digits, '.', '_' and '-'."),
    game: list[str] = typer.Option(..., "--game", "-g", help="A game the bot plays. Repeatable."),
    command: str | None = typer.Option(
        None, "--command", "-c", help="The command that starts a managed bot (the server runs it)."
    ),
    remote: bool = typer.Option(
        False,
        "--remote",
        help="A remote bot: its author runs it, and it connects with the token printed (as when "
        "--command is left out).",
    ),
    workdir: str | None = typer.Option(None, "--workdir", help="Working directory for the command."),
    path: Path | None = typer.Option(
        None, "--path", help="A bot folder on the server's machine: built and validated like a submission."
    ),
    check: bool = typer.Option(
        True, "--check/--no-check", help="Start a managed bot once, up to its hello, before registering it."
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Register a bot and print its token (shown only this once).

    Relative paths in the command (the program, and arguments naming existing files) are made
    absolute here, against the folder you run this in; the server stores the absolute command."""
    if remote and command is not None:
        fail("a bot is managed (--command) or remote (--remote), not both", code=2)
    if command is not None and not command.strip():
        fail("the command is empty: give the command that starts the bot, or --remote for a remote bot")
    if path is not None:
        _add_folder(name, game, path, server, admin_token)
        return
    argv, folder = _command(command, workdir)
    request = admin_pb2.AddBotRequest(
        name=name, games=game, command=argv, working_directory=folder or "", check=check and bool(argv)
    )
    with admin_client(server, admin_token) as client:
        answer = client.call("AddBot", request, timeout=120)
    kind = "managed" if argv else "remote"
    console.print(f"registered {kind} bot [bold]{name}[/] for {', '.join(answer.bot.games)}")
    if argv:
        console.print(f"command: {shlex.join(answer.bot.command)}", soft_wrap=True, highlight=False)
    console.print(f"token (shown once; keep it secret): [bold]{answer.token}[/]", soft_wrap=True)


@app.command("check")
def check(
    name: str = typer.Argument(..., help="The bot's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Start a managed bot once, up to its hello, and say whether it works (with its stderr)."""
    with admin_client(server, admin_token) as client:
        answer = client.call("CheckBot", admin_pb2.CheckBotRequest(name=name), timeout=120)
    if answer.ok:
        console.print(f"{name}: ok, {answer.detail}")
        return
    if answer.stderr_tail.strip():
        errors.print(answer.stderr_tail.rstrip(), markup=False, highlight=False, soft_wrap=True)
    fail(f"{name} did not start: {answer.detail}")


@app.command("edit")
def edit(
    name: str = typer.Argument(..., help="The bot's name."),
    command: str | None = typer.Option(None, "--command", "-c", help="A new command (managed bots)."),
    workdir: str | None = typer.Option(None, "--workdir", help="A new working directory ('' clears it)."),
    game: list[str] = typer.Option([], "--game", "-g", help="The games it plays from now on. Repeatable."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Change a bot's command, working directory or games (relative paths resolved here)."""
    argv, folder = _command(command, workdir or None)
    request = admin_pb2.EditBotRequest(name=name, games=game)
    if command is not None:
        request.command.argv.extend(argv)
    if workdir is not None:
        request.working_directory = folder or ""
    with admin_client(server, admin_token) as client:
        bot = client.call("EditBot", request)
    console.print(f"{bot.name}: {_kind(bot)}, plays {', '.join(bot.games)}, {_state(bot)}")
    if bot.command:
        console.print(f"command: {shlex.join(bot.command)}", soft_wrap=True, highlight=False)


@app.command("reinstate")
def reinstate(
    name: str = typer.Argument(..., help="The bot's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Lift a bot's suspension: it is scheduled again."""
    with admin_client(server, admin_token) as client:
        bot = client.call("ReinstateBot", admin_pb2.ReinstateBotRequest(name=name))
    console.print(f"{bot.name} is now {_state(bot)}")


@app.command("remove")
def remove(
    name: str = typer.Argument(..., help="The bot's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Remove a bot for good: its history stays under its name; it never plays again."""
    with admin_client(server, admin_token) as client:
        bot = client.call("RemoveBot", admin_pb2.RemoveBotRequest(name=name))
    console.print(f"{bot.name} is removed (its matches and ratings stay in the history)")


def _add_folder(name: str, games: list[str], path: Path, server: str | None, admin_token: str | None) -> None:
    """``bot add NAME --path DIR``: the server builds and validates the folder as its version 1."""
    from kingmaker.server.cli.submit import follow_version

    if not path.is_dir():
        fail(f"{path} is not a folder")
    request = admin_pb2.AddBotRequest(name=name, games=games, path=str(path.resolve()))
    with admin_client(server, admin_token) as client:
        answer = client.call("AddBot", request, timeout=120)
        console.print(
            f"registered bot [bold]{name}[/] for {', '.join(answer.bot.games)}: building its version 1"
        )
        follow_version(client, name, answer.bot.latest_version or 1)


def _command(command: str | None, workdir: str | None) -> tuple[list[str], str | None]:
    """The command and working directory with relative paths resolved, or a one-line error.
    No command (None) is a remote bot's; an empty one is a mistake, not a remote bot."""
    try:
        argv = shlex.split(command) if command is not None else []
        folder = resolve_workdir(workdir)
        if command is not None:
            argv = resolve_command(argv, Path(folder) if folder else None)
    except (ValueError, CommandError) as error:
        fail(f"bad --command or --workdir: {error}")
    return argv, folder


@app.command("list")
def list_(
    game: str | None = typer.Option(None, "--game", "-g", help="Only bots that play this game."),
    limit: int = typer.Option(
        100, min=bounds.PAGE.low, max=bounds.PAGE.high, help="At most this many, by name."
    ),
    after: str = typer.Option("", "--after", help="Only bots named after this (the next page)."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """List the registered bots, a page at a time."""
    request = admin_pb2.ListBotsRequest(game=game or "", limit=limit, page_token=after)
    with admin_client(server, admin_token) as client:
        if game:
            require_game(client, game)
        answer = client.call("ListBots", request)
    if json:
        print_json(as_data(answer))
        return
    shown = table("Bots", ("name", "games", "kind", "state", "connected"), wrap=("games",))
    for bot in answer.bots:
        shown.add_row(
            bot.name, ", ".join(bot.games), _kind(bot), _state(bot), "yes" if bot.connected else "no"
        )
    print_table(shown)
    if answer.next_page_token:
        console.print(f"more: --after {answer.next_page_token}")


@app.command("show")
def show(
    name: str = typer.Argument(..., help="The bot's name."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Show one bot: how it starts, whether it is suspended (and why, with the end of its stderr),
    and what it has done: matches, win rate and mean place per game, how its seats ended, and how
    long it takes to decide (p50, p99 over its latest matches)."""
    with admin_client(server, admin_token) as client:
        bot = client.call("GetBot", admin_pb2.GetBotRequest(name=name))
        stats = client.call("GetBotStats", admin_pb2.GetBotRequest(name=name))
    if json:
        print_json({**as_data(bot), "stats": as_data(stats)})
        return
    console.print(f"[bold]{bot.name}[/] ({_kind(bot)}), {_state(bot)}")
    console.print(f"games: {', '.join(bot.games)}")
    if bot.command:
        console.print(f"command: {shlex.join(bot.command)}", soft_wrap=True, highlight=False)
    if bot.working_directory:
        console.print(f"working directory: {bot.working_directory}", soft_wrap=True, highlight=False)
    if bot.confinement:
        console.print(f"runs: {bot.confinement}", soft_wrap=True, markup=False)
    if bot.latest_version:
        playing = f"plays version {bot.active_version}" if bot.active_version else "no version plays yet"
        newest = (
            ""
            if bot.latest_version == bot.active_version
            else f"; newest {bot.latest_version}: {bot.latest_status}"
        )
        console.print(f"versions: {playing}{newest} (bot builds {bot.name})", highlight=False)
    console.print(f"registered: {datetime.fromtimestamp(bot.created_at, UTC):%Y-%m-%d %H:%M} UTC")
    console.print(f"connected now: {'yes' if bot.connected else 'no'}")
    if bot.suspended_reason:
        console.print(f"[bold red]suspended:[/] {bot.suspended_reason}", soft_wrap=True)
        if bot.suspended_stderr:
            console.print("end of its stderr in that match:")
            console.print(bot.suspended_stderr, markup=False, highlight=False, soft_wrap=True)
    print_stats(stats)


def print_stats(stats: admin_pb2.BotStats) -> None:
    played = [game for game in stats.games if game.matches]
    if not played:
        console.print("no rated matches yet")
    else:
        record = table("Rated matches", ("game", "matches", "wins", "win rate", "mean place", "faults"))
        for game in played:
            record.add_row(
                game.game, str(game.matches), str(game.wins), f"{game.win_rate:.0%}",
                f"{game.mean_place:.2f}", str(game.faults),
            )  # fmt: skip
        print_table(record)
    if stats.ends:
        ends = ", ".join(f"{count} {reason}" for reason, count in sorted(stats.ends.items()))
        console.print(f"seats ended: {ends}", soft_wrap=True)
    if stats.HasField("last_fault"):
        fault = stats.last_fault
        said = f": {fault.detail}" if fault.detail else ""
        console.print(
            f"last fault: match {fault.match_id}, {fault.end_reason}{said}",
            soft_wrap=True,
            markup=False,
            highlight=False,
        )
    think = stats.think
    if think.decisions:
        console.print(
            f"think time: p50 {think.p50_ms:.1f} ms, p99 {think.p99_ms:.1f} ms, mean "
            f"{think.total_ms / think.decisions:.1f} ms over {think.decisions} decisions "
            f"in its latest {stats.think_matches} matches",
            soft_wrap=True,
        )


@app.command("disable")
def disable(
    name: str = typer.Argument(..., help="The bot's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Disable a bot: it can no longer connect or be scheduled; its history stays."""
    _set_enabled(name, False, server, admin_token)


@app.command("enable")
def enable(
    name: str = typer.Argument(..., help="The bot's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Enable a disabled bot again."""
    _set_enabled(name, True, server, admin_token)


@app.command("logs")
def logs(
    name: str = typer.Argument(..., help="Your bot's name."),
    match: str | None = typer.Option(None, "--match", "-m", help="One match only (its id)."),
    limit: int = typer.Option(20, "--limit", "-n", min=1, max=1000, help="How many of its newest matches."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Your bot's own logs, newest match first: its stderr, each strike and why, how its process ended.

    Only the matches where it left something (stderr, a strike, an exit) are listed. The owner and
    the admin only."""
    request = admin_pb2.GetBotLogsRequest(bot=name, match_id=match or "", limit=limit)
    with admin_client(server, admin_token) as client:
        found = client.call("GetBotLogs", request).logs
    if json:
        print_json([as_data(log) for log in found])
        return
    if not found:
        where = f"in match {match}" if match else "in its matches"
        console.print(f"{name} left no log {where}: no stderr, no strike, no exit")
        return
    for log in found:
        print_seat_log(log)


@app.command("rotate-token")
def rotate_token(
    name: str = typer.Argument(..., help="The bot's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Give a bot a new token; the old one stops working at once."""
    with admin_client(server, admin_token) as client:
        token = client.call("RotateToken", admin_pb2.RotateTokenRequest(name=name)).token
    console.print(f"new token for [bold]{name}[/] (shown once): [bold]{token}[/]", soft_wrap=True)


def _set_enabled(name: str, enabled: bool, server: str | None, admin_token: str | None) -> None:
    with admin_client(server, admin_token) as client:
        bot = client.call("SetBotEnabled", admin_pb2.SetBotEnabledRequest(name=name, enabled=enabled))
    console.print(f"{bot.name} is now {_state(bot)}")


def _kind(bot: admin_pb2.BotInfo) -> str:
    """Told by ``managed``: another author's bot comes without its command."""
    return "managed" if bot.managed or bot.command or bot.active_version or bot.latest_version else "remote"


def _state(bot: admin_pb2.BotInfo) -> str:
    if bot.retired:
        return "removed"
    if not bot.enabled:
        return "disabled"
    return "suspended" if bot.suspended_reason else "active"
