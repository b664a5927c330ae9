"""``kingmaker bot builds``, ``bot build-log`` and ``bot rollback``: a bot's versions, what their
builds said, and bringing an earlier version back."""

from __future__ import annotations

from datetime import UTC, datetime

import typer

from kingmaker.ladder import bounds
from kingmaker.server.cli.common import ServerOption, TokenOption, admin_client, console
from kingmaker.server.cli.output import JsonOption, as_data, print_json, print_table, table
from kingmaker.v1 import admin_pb2


def builds(
    name: str = typer.Argument(..., help="The bot's name."),
    limit: int = typer.Option(20, min=1, max=1000, help="At most this many, newest first."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """A bot's versions, newest first: number, status, when, by whom, the built folder's hash, and why
    a version failed, was rejected or retired."""
    with admin_client(server, admin_token) as client:
        answer = client.call("ListVersions", admin_pb2.ListVersionsRequest(bot=name, limit=limit))
    if json:
        print_json(as_data(answer))
        return
    shown = table(
        f"{name}: versions", ("version", "status", "when", "by", "source", "build", "why"), ("why",)
    )
    for version in answer.versions:
        shown.add_row(
            str(version.number), _status(version), _when(version.created_at), version.submitted_by or "admin",
            version.source, version.build_hash[:12] or "-", version.status_reason,
        )  # fmt: skip
    print_table(shown)
    if answer.next_page_token:
        console.print(f"more: --limit {limit * 2}")


def build_log(
    name: str = typer.Argument(..., help="The bot's name."),
    version: int = typer.Argument(
        0, min=bounds.VERSION.low, max=bounds.VERSION.high, help="The version (default: the newest)."
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """What a version's build printed (its end, when long), and how its validation went."""
    with admin_client(server, admin_token) as client:
        info = client.call("GetVersion", admin_pb2.GetVersionRequest(bot=name, number=version))
    console.print(f"[bold]{info.bot}[/] version {info.number}: {info.status}", highlight=False)
    if info.status_reason:
        console.print(info.status_reason, markup=False, highlight=False, soft_wrap=True)
    if not info.source:  # (every version has one, shown to its owner and the admin only)
        console.print("its build, manifest and stderr are its owner's and the admin's", highlight=False)
    for key, value in sorted(info.manifest.items()):
        console.print(f"{key}: {value}", markup=False, highlight=False, soft_wrap=True)
    if info.source:
        console.print(info.build_log.rstrip() or "(the build printed nothing)", markup=False, highlight=False)
    for match in info.validation:
        outcome = "passed" if match.passed else "FAILED"
        console.print(
            f"validation {match.game}, {match.players} players, seat {match.seat}: {outcome}"
            + (f" ({match.detail})" if match.detail and not match.passed else ""),
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        if match.stderr_tail.strip():
            console.print(match.stderr_tail.rstrip(), markup=False, highlight=False, soft_wrap=True)


def rollback(
    name: str = typer.Argument(..., help="The bot's name."),
    version: int = typer.Argument(
        ..., min=1, max=bounds.VERSION.high, help="The earlier version that plays again."
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Make an earlier version (one that built and passed validation) the one that plays again; the
    ratings follow the game's ladder policy, as for a new version."""
    with admin_client(server, admin_token) as client:
        bot = client.call("RollbackBot", admin_pb2.RollbackBotRequest(bot=name, number=version))
    console.print(f"{bot.name} plays version {bot.active_version} again", highlight=False)


def _status(version: admin_pb2.VersionInfo) -> str:
    """Its status, with its place when queued ("queued, 2nd in line") and whether it was pruned."""
    status = version.status
    if status == "queued" and version.queue_place:
        place = version.queue_place
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(place if place < 20 else place % 10, "th")
        status = f"queued, {place}{suffix} in line"
    return f"{status}, pruned" if version.pruned else status


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M") if seconds else "-"
