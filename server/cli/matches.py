"""``kingmaker match``: run one match through a server, and look at stored matches."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from kingmaker.ladder import bounds
from kingmaker.server.cli.common import (
    ServerOption,
    TokenOption,
    admin_client,
    console,
    fail,
    require_game,
)
from kingmaker.server.cli.fault_summary import FAULT_EXIT, FaultSummary
from kingmaker.server.cli.league_results import match_data
from kingmaker.server.cli.output import JsonOption, print_json, print_table, table
from kingmaker.server.cli.paths import CommandError, resolve_command
from kingmaker.server.cli.seat_logs import print_seat_log, print_steps, steps_data
from kingmaker.server.web.seat_words import end_reason_word, seat_bot
from kingmaker.v1 import admin_pb2, common_pb2

if TYPE_CHECKING:
    from kingmaker.games.api import OptionValue

app = typer.Typer(help="Run a match through the server, or show a stored one.", no_args_is_help=True)

_NAMED = re.compile(r"^([\w.-]+)=(.+)$", re.DOTALL)


@app.command("run")
def run(
    game: str = typer.Argument(..., help="The game's name, as `kingmaker games` lists it."),
    seat: list[str] = typer.Option(
        [],
        "--seat",
        help="A command or bot folder per seat, in seat order: 'NAME=COMMAND', 'NAME=DIR' or just "
        "'COMMAND'. A folder is built by the server per its kingmaker.toml. Repeat per seat.",
    ),
    bot: list[str] = typer.Option(
        [],
        "--bot",
        "-b",
        help="A registered bot per seat, in seat order (rated). Repeat per seat. A bot takes one seat "
        "at most (a match rates each seat's bot against the others); to play a bot against itself, "
        "give its command twice with --seat (not stored).",
    ),
    seed: int | None = typer.Option(
        None, min=0, max=bounds.SEED.high, help="Seed of the game's chance (default: random, recorded)."
    ),
    option: list[str] = typer.Option([], "--option", "-o", help="A game option as NAME=VALUE. Repeatable."),
    decision_ms: int | None = typer.Option(
        None, min=1, max=bounds.DECISION_MS.high, help="Time per decision in ms (default: the server's)."
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Play one match through a running server and print the result: between commands the server
    runs for this match only (--seat), or between registered bots, stored and rated (--bot)."""
    from kingmaker.sdk.codec import options_to_proto  # the SDK loads every game's engine: only here

    if bool(seat) == bool(bot):
        raise typer.BadParameter(
            "give either --seat commands or --bot names, one per seat", param_hint="--seat"
        )
    seats = [parse_seat(text) for text in seat] or [admin_pb2.MatchSeat(bot=name) for name in bot]
    request = admin_pb2.RunMatchRequest(
        game=game, seats=seats, options=options_to_proto(parse_options(option))
    )
    if seed is not None:
        request.seed = seed
    if decision_ms is not None:
        request.time_control.CopyFrom(common_pb2.TimeControl(decision_ms=decision_ms))
    with admin_client(server, admin_token) as client:
        games = {info.name: info for info in client.call("ListGames", admin_pb2.ListGamesRequest()).games}
        if game not in games:
            fail(f"unknown game {game!r} (known games: {', '.join(sorted(games))})")
        with console.status(f"playing {game} with {len(seats)} bots"):
            record = client.call("RunMatch", request)
    print_record(record, games[game].score_name, unstored=not bot)
    if not bot:
        console.print(
            f"match {record.match_id} is not stored: it is not rated and not on the website; this server "
            f"keeps it until it stops (kingmaker match show {record.match_id}, kingmaker replay "
            f"{record.match_id}). Register the bots and use --bot for a stored match.",
            soft_wrap=True,
        )
    summary = FaultSummary()
    summary.add(record)
    summary.print()
    if summary.bot_faults:
        raise typer.Exit(FAULT_EXIT)


@app.command("show")
def show(
    match_id: str = typer.Argument(..., help="The match id, as `match run` printed it."),
    steps: bool = typer.Option(
        False, "--steps", help="What your bots printed on stderr at each step (your own seats only)."
    ),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Show a stored match's result."""
    with admin_client(server, admin_token) as client:
        record = client.call("GetMatch", admin_pb2.GetMatchRequest(match_id=match_id))
        games = {info.name: info for info in client.call("ListGames", admin_pb2.ListGamesRequest()).games}
    if json:
        data = match_data(record)
        if steps:
            data["steps"] = [steps_data(log) for log in record.seat_logs]
        print_json(data)
        return
    print_record(record, games[record.game].score_name if record.game in games else "score")
    if steps:
        print_steps(record)


def print_record(record: admin_pb2.MatchRecord, score_name: str, unstored: bool = False) -> None:
    kind = "unstored " if unstored else ""
    title = (
        f"{kind}{record.game} match {record.match_id} (seed {record.seed}, {len(record.decisions)} decisions)"
    )
    shown = table(title, ("seat", "bot", score_name, "rank", "ended", "strikes", "detail"), ("detail",))
    for seat in record.seats:
        reason = end_reason_word(seat.end_reason)
        rank = str(seat.rank) if seat.rank else "-"
        bot = seat_bot(seat)  # the version that played
        shown.add_row(str(seat.seat), bot, str(seat.score), rank, reason, str(seat.strikes), seat.detail)
    print_table(shown)
    logged = {log.seat for log in record.seat_logs}
    for seat in record.seats:
        if seat.stderr_tail.strip() and seat.seat not in logged:
            console.print(f"end of {seat.bot}'s stderr (seat {seat.seat}):")
            console.print(seat.stderr_tail.rstrip(), markup=False, highlight=False, soft_wrap=True)
    for log in record.seat_logs:  # the seats of the caller's own bots (every seat for the admin)
        console.print(f"seat {log.seat}, {log.bot}:", markup=False, highlight=False)
        print_seat_log(log, heading=False)
    if (record.status and record.status != "finished") or record.status_reason:
        # Void, unrated or cancelled: say so, or a reader would take the table for a result.
        console.print(f"{record.status}: {record.status_reason}" if record.status_reason else record.status)


def parse_seat(text: str) -> admin_pb2.MatchSeat:
    named = _NAMED.match(text)
    name, command_text = (
        (named.group(1), named.group(2)) if named and " " not in named.group(1) else ("", text)
    )
    folder = Path(command_text).expanduser()
    if folder.is_dir():  # a bot's folder: the server builds it per its manifest and runs it
        return admin_pb2.MatchSeat(bot=name or folder.resolve().name, path=str(folder.resolve()))
    try:
        command = shlex.split(command_text)
    except ValueError as error:
        raise typer.BadParameter(
            f"cannot parse the command {command_text!r}: {error}", param_hint="--seat"
        ) from None
    if not command:
        raise typer.BadParameter("a seat needs a command", param_hint="--seat")
    try:
        resolved = resolve_command(command)
    except CommandError as error:
        fail(f"bad --seat: {error}")
    return admin_pb2.MatchSeat(bot=name or _default_name(command), command=resolved)


def parse_options(texts: list[str]) -> dict[str, OptionValue]:
    options: dict[str, OptionValue] = {}
    for text in texts:
        name, sep, raw = text.partition("=")
        if not sep or not name:
            raise typer.BadParameter(f"expected NAME=VALUE, got {text!r}", param_hint="--option")
        options[name] = _option_value(raw)
    return options


def _option_value(raw: str) -> OptionValue:
    if raw.lower() in ("true", "false"):
        return raw.lower() == "true"
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    return raw


def _default_name(command: list[str]) -> str:
    last = command[-1].rsplit("/", 1)[-1]
    return last.removesuffix(".py").removesuffix(".js")


@app.command("list")
def list_(
    league: str | None = typer.Option(None, "--league", "-l", help="Only this league's matches."),
    game: str | None = typer.Option(None, "--game", "-g", help="Only this game's matches."),
    limit: int = typer.Option(
        20, min=bounds.PAGE.low, max=bounds.PAGE.high, help="At most this many, newest first."
    ),
    before: str = typer.Option("", "--before", help="Only matches older than this id (the next page)."),
    with_people: bool = typer.Option(
        False, "--with-people", help="Only matches a person played in (`kingmaker play`, the /play page)."
    ),
    bot: str = typer.Option("", "--bot", "-b", help="Only matches this bot played in."),
    opponent: str = typer.Option("", "--opponent", help="Only matches --bot played against this bot."),
    version: int = typer.Option(
        0, "--version", min=0, max=bounds.VERSION.high, help="Only matches --bot played with this version."
    ),
    result: str = typer.Option(
        "",
        "--result",
        help="Only finished matches --bot ended so: win (first alone), draw (first shared), loss.",
    ),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """List stored matches, newest first, a page at a time (one-off matches show league "-")."""
    request = admin_pb2.ListMatchesRequest(
        league=league or "", game=game or "", limit=limit, page_token=before, with_people=with_people,
        bot=bot, opponent=opponent, version=version, result=result,
    )  # fmt: skip
    with admin_client(server, admin_token) as client:
        if game:
            require_game(client, game)
        answer = client.call("ListMatches", request)
    if json:
        print_json({"matches": [match_data(record) for record in answer.matches],
                    "next_page_token": answer.next_page_token})  # fmt: skip
        return
    shown = table(
        "Matches", ("id", "league", "game", "status", "seats (score, place)"), ("seats (score, place)",)
    )
    for record in answer.matches:
        seats = ", ".join(
            f"{seat.bot} ({seat.score}, {seat.rank})" if seat.rank else seat.bot for seat in record.seats
        )
        shown.add_row(record.match_id, record.league or "-", record.game, record.status, seats)
    print_table(shown)
    if answer.next_page_token:
        console.print(f"more: --before {answer.next_page_token}")
