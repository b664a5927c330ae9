"""``kingmaker league``: create leagues, run them with a live progress bar, see where they stand."""

from __future__ import annotations

import time

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from kingmaker.ladder import bounds
from kingmaker.server.cli.common import ServerOption, TokenOption, admin_client, console
from kingmaker.server.cli.fault_summary import FAULT_EXIT, FaultSummary
from kingmaker.server.cli.league_results import export, table_
from kingmaker.server.cli.league_status import held, left, print_league
from kingmaker.server.cli.matches import parse_options
from kingmaker.server.cli.output import JsonOption, as_data, print_json, print_table, table
from kingmaker.v1 import admin_pb2

app = typer.Typer(help="Create, run and follow leagues.", no_args_is_help=True)

FORMATS = ("round_robin", "gauntlet", "ladder")

app.command("export")(export)
app.command("table")(table_)


@app.command("create")
def create(
    name: str = typer.Argument(..., help="A unique name for the league."),
    game: str = typer.Option(..., "--game", "-g", help="The game the league plays."),
    bot: list[str] = typer.Option(..., "--bot", "-b", help="A registered bot taking part. Repeatable."),
    format: str = typer.Option("round_robin", "--format", "-f", help="round_robin, gauntlet or ladder."),
    players: int = typer.Option(
        0,
        "--players",
        "-p",
        min=0,
        max=bounds.PLAYERS.high,
        help="Seats per match (default: the game's minimum).",
    ),
    rounds: int = typer.Option(
        1,
        min=bounds.ROUNDS.low,
        max=bounds.ROUNDS.high,
        help="How many times the plan is played (round robin, gauntlet).",
    ),
    duplicate: bool = typer.Option(False, help="Play each seed once per rotation of the seats."),
    challenger: str | None = typer.Option(None, help="For a gauntlet: the bot that plays the field."),
    max_matches: int = typer.Option(
        0, min=0, max=bounds.LADDER_MATCHES.high, help="For a ladder: stop after this many matches."
    ),
    time_budget: float = typer.Option(
        0.0, min=0.0, max=bounds.TIME_BUDGET_S.high, help="For a ladder: stop after this many seconds."
    ),
    seed: int | None = typer.Option(
        None, min=0, max=bounds.SEED.high, help="League seed (default: random, recorded)."
    ),
    option: list[str] = typer.Option([], "--option", "-o", help="A game option as NAME=VALUE. Repeatable."),
    live_delay: float = typer.Option(
        0.0,
        "--live-delay",
        min=bounds.LIVE_DELAY_S.low,
        max=bounds.LIVE_DELAY_S.high,
        help="Show its running matches on the website this many seconds late.",
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Create a league and plan its matches."""
    from kingmaker.sdk.codec import options_to_proto  # the SDK loads every game's engine: only here

    if format not in FORMATS:
        raise typer.BadParameter(f"must be one of {', '.join(FORMATS)}", param_hint="--format")
    request = admin_pb2.CreateLeagueRequest(
        name=name,
        game=game,
        format=format,
        bots=bot,
        players=players,
        rounds=rounds,
        duplicate=duplicate,
        challenger=challenger or "",
        max_matches=max_matches,
        time_budget_seconds=time_budget,
        live_delay_seconds=live_delay,
        options=options_to_proto(parse_options(option)),
    )
    if seed is not None:
        request.seed = seed
    with admin_client(server, admin_token) as client:
        league = client.call("CreateLeague", request)
    planned = sum(league.matches.values())
    console.print(
        f"created league [bold]{league.name}[/]: {league.game}, {league.format}, {planned} matches planned"
    )


@app.command("run")
def run(
    name: str = typer.Argument(..., help="The league's name."),
    concurrency: int = typer.Option(
        0,
        min=0,
        max=bounds.CONCURRENCY.high,
        help="Matches at the same time (default: what the league last ran with, or the server's).",
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Run a league on the server, showing matches done, running and left, until it is done.

    Ends with the faults of each bot; exits 3 if any seat ended by its bot's fault, 0 otherwise."""
    with admin_client(server, admin_token) as client:
        # An unknown league: one line.
        league = client.call("GetLeague", admin_pb2.GetLeagueRequest(name=name))
        summary, reason = run_with_progress(client, name, concurrency, league)
        league = client.call("GetLeague", admin_pb2.GetLeagueRequest(name=name))
    print_league(league)
    if reason and reason != "finished":
        console.print(f"the run ended: {reason}", soft_wrap=True)
    summary.print()
    if summary.bot_faults:
        raise typer.Exit(FAULT_EXIT)


def run_with_progress(
    client: object, name: str, concurrency: int, league: admin_pb2.LeagueInfo | None = None
) -> tuple[FaultSummary, str]:
    """Follow a league run (shared with `kingmaker demo`): a round robin or gauntlet with a bar
    toward its planned matches; a continuous ladder with matches played, per minute and what is
    left of its budget (a bar only toward a set match count). The faults seen and why the run
    ended."""
    request = admin_pb2.RunLeagueRequest(name=name, concurrency=concurrency)
    continuous = league is not None and league.format == "ladder"
    counted = continuous and league is not None and league.max_matches > 0
    columns = (
        TextColumn("[bold]{task.description}"),
        *((BarColumn(), MofNCompleteColumn()) if counted or not continuous else ()),
        TextColumn("{task.fields[line]}"),
        TimeElapsedColumn(),
    )
    summary = FaultSummary()
    reason = ""
    with Progress(*columns, console=console) as progress:
        task = progress.add_task(name, total=None, line="starting")
        for update in client.stream("RunLeague", request):  # type: ignore[attr-defined]
            if continuous:
                assert league is not None
                total = league.max_matches or None
                line = ladder_line(update, league)
            else:
                total = update.finished + update.running + update.waiting
                line = f"{update.running} running, {update.waiting} left"
            if update.held_back:
                line += "; " + held(
                    update.held_back, update.held_back_seconds, update.server_lag_ms, update.lag_limit_ms
                )
            if update.waiting_reason:
                line += "; " + update.waiting_reason
            progress.update(task, completed=update.finished, total=total, line=line)
            if update.HasField("last"):
                summary.add(update.last)
            reason = update.reason or reason
    return summary, reason


def ladder_line(update: admin_pb2.LeagueProgress, league: admin_pb2.LeagueInfo) -> str:
    parts = [f"{update.finished} played", f"{update.running} running"]
    if update.matches_per_minute:
        parts.append(f"{update.matches_per_minute:.1f} matches/min")
    if league.time_budget_seconds and not league.started_at:
        league.started_at = time.time()  # its first match starts now
    parts.extend(part for part in left(league, update.finished) if "matches left" not in part)
    return ", ".join(parts)


@app.command("pause")
def pause(
    name: str = typer.Argument(..., help="The league's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Start no new match of the league (those in play finish); `league resume` carries on."""
    _control("PauseLeague", name, server, admin_token)


@app.command("resume")
def resume(
    name: str = typer.Argument(..., help="The league's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Carry on a paused or interrupted league in the background, with the concurrency it had."""
    _control("ResumeLeague", name, server, admin_token)


@app.command("stop")
def stop(
    name: str = typer.Argument(..., help="The league's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """End a league for good: waiting matches are cancelled, those in play finish and count."""
    _control("StopLeague", name, server, admin_token)


def _control(method: str, name: str, server: str | None, admin_token: str | None) -> None:
    with admin_client(server, admin_token) as client:
        league = client.call(method, admin_pb2.LeagueControlRequest(name=name))
    print_league(league)


@app.command("join")
def join(
    name: str = typer.Argument(..., help="The ladder league's name."),
    bot: str = typer.Argument(..., help="The registered bot that joins it."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Enter a bot in a ladder league, running or not; it starts level with the field."""
    _member("JoinLeague", name, bot, server, admin_token)


@app.command("leave")
def leave(
    name: str = typer.Argument(..., help="The ladder league's name."),
    bot: str = typer.Argument(..., help="The bot that leaves it."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Take a bot out of a ladder league: its waiting matches are cancelled, those in play count."""
    _member("LeaveLeague", name, bot, server, admin_token)


def _member(method: str, name: str, bot: str, server: str | None, admin_token: str | None) -> None:
    with admin_client(server, admin_token) as client:
        league = client.call(method, admin_pb2.LeagueMemberRequest(name=name, bot=bot))
    print_league(league)


@app.command("rerun")
def rerun(
    name: str = typer.Argument(..., help="The league whose recorded plan to play again."),
    new_name: str = typer.Argument(..., help="The new league's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Create a league that replays another's plan (same seeds, same seats); then `league run` it."""
    with admin_client(server, admin_token) as client:
        league = client.call("RerunLeague", admin_pb2.RerunLeagueRequest(name=name, new_name=new_name))
    console.print(
        f"created league [bold]{league.name}[/] with {sum(league.matches.values())} matches from {name}"
    )


@app.command("status")
def status(
    name: str = typer.Argument(..., help="The league's name."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Where a league stands: its matches by status."""
    with admin_client(server, admin_token) as client:
        league = client.call("GetLeague", admin_pb2.GetLeagueRequest(name=name))
    if json:
        print_json(as_data(league))
        return
    print_league(league)


@app.command("list")
def list_(
    limit: int = typer.Option(
        100, min=bounds.PAGE.low, max=bounds.PAGE.high, help="At most this many, oldest first."
    ),
    after: str = typer.Option("", "--after", help="Only leagues after this page token (the next page)."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """List the leagues, a page at a time."""
    with admin_client(server, admin_token) as client:
        answer = client.call("ListLeagues", admin_pb2.ListLeaguesRequest(limit=limit, page_token=after))
    if json:
        print_json(as_data(answer))
        return
    found = answer.leagues
    shown = table("Leagues", ("name", "game", "format", "seats", "bots", "state", "done"))
    for league in found:
        done = league.matches.get("finished", 0)
        total = sum(league.matches.values()) - league.matches.get("cancelled", 0)
        if league.format == "ladder":  # planned as it goes: there is no total to count toward
            total = league.max_matches
        state = "finished" if league.finished else "paused" if league.paused else "open"
        shown.add_row(
            league.name, league.game, league.format, str(league.players), str(len(league.bots)),
            state, f"{done}/{total}" if total else f"{done} played",
        )  # fmt: skip
    print_table(shown)
    if answer.next_page_token:
        console.print(f"more: --after {answer.next_page_token}")
