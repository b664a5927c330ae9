"""``kingmaker bot trials``: a version's trial matches (its validation's and its A/B duel's),
never rated, kept for its owner; ``kingmaker replay trial:ID --bot NAME`` replays one."""

from __future__ import annotations

from datetime import UTC, datetime

import typer

from kingmaker.ladder import bounds
from kingmaker.server.cli.common import ServerOption, TokenOption, admin_client, console
from kingmaker.server.cli.output import JsonOption, as_data, print_json, print_table, table
from kingmaker.v1 import admin_pb2, common_pb2

TRIAL_PREFIX = "trial:"
"""How ``replay`` tells a trial match's id from a ladder match's: ``trial:7``."""


def trials(
    name: str = typer.Argument(..., help="Your bot's name."),
    version: int = typer.Option(
        0,
        "--version",
        "-v",
        min=bounds.VERSION.low,
        max=bounds.VERSION.high,
        help="One version only (0: every version).",
    ),
    limit: int = typer.Option(
        100,
        "--limit",
        "-n",
        min=bounds.PAGE.low,
        max=bounds.PAGE.high,
        help="At most this many, newest first.",
    ),
    before: str = typer.Option(
        "", "--before", help="Only trial matches older than this id (the next page: the last id shown)."
    ),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Your bot's trial matches, newest first: what its versions played in validation (against
    random bots) and in their A/B duels. Never rated. The owner and the admin only."""
    request = admin_pb2.ListTrialMatchesRequest(bot=name, version=version, limit=limit, page_token=before)
    with admin_client(server, admin_token) as client:
        answer = client.call("ListTrialMatches", request)
    found = answer.matches
    if json:
        print_json([as_data(trial) for trial in found])
        return
    if not found:
        which = f"version {version} of {name}" if version else name
        older = f" older than trial:{before}" if before else ""
        console.print(f"{which} has no trial match stored{older}", soft_wrap=True)
        return
    shown = table(f"{name}: trial matches", ("id", "version", "for", "game", "seats", "when"), ("seats",))
    for trial in found:
        shown.add_row(
            f"{TRIAL_PREFIX}{trial.id}", str(trial.version), trial.purpose, trial.game,
            ", ".join(_seat(seat) for seat in trial.seats), _when(trial.played_at),
        )  # fmt: skip
    print_table(shown)
    if answer.next_page_token:
        console.print(f"more: --before {answer.next_page_token}")
    console.print(f"replay one: kingmaker replay {TRIAL_PREFIX}ID --bot {name}", soft_wrap=True)


def _seat(seat: common_pb2.SeatResult) -> str:
    """ "annbot v3: 12 (1st)", or how it ended when not by finishing."""
    who = f"{seat.bot} v{seat.version}" if seat.version else seat.bot
    ended = "" if seat.end_reason == common_pb2.END_REASON_FINISHED else f", {seat.detail or 'fault'}"
    return f"{who}: {seat.score} (#{seat.rank}{ended})"


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M") if seconds else "-"
