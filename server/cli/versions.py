"""``kingmaker bot builds``, ``bot build-log`` and ``bot rollback``: a bot's versions, what their
builds said, and bringing an earlier version back."""

from __future__ import annotations

import contextlib
import json as json_module
from datetime import UTC, datetime

import typer

from kingmaker.ladder import bounds
from kingmaker.server.cli.common import AdminClient, ServerOption, TokenOption, admin_client, console
from kingmaker.server.cli.output import JsonOption, as_data, print_json, print_table, table
from kingmaker.server.cli.submit import ab_games
from kingmaker.v1 import admin_pb2

WHY_WIDTH = 30
"""The narrowest the "why" column of `bot builds` may be beside the others."""


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
    rows = [
        (str(version.number), _status(version), _when(version.created_at), version.submitted_by or "admin",
         version.source, version.build_hash[:12] or "-")
        for version in answer.versions
    ]  # fmt: skip
    columns = ("version", "status", "when", "by", "source", "build")
    fixed = sum(
        max(len(text) for text in [column, *(row[at] for row in rows)]) + 2
        for at, column in enumerate(columns)
    )
    # The reasons beside the rest when they have room to read; else each on a line of its own below
    # (a column of a few letters would break every word).
    beside = console.width - fixed >= WHY_WIDTH
    shown = table(f"{name}: versions", (*columns, "why") if beside else columns, ("why",))
    for row, version in zip(rows, answer.versions, strict=True):
        shown.add_row(*row, *([version.status_reason] if beside else []))
    print_table(shown)
    if not beside:
        for version in answer.versions:
            if version.status_reason:
                console.print(
                    f"version {version.number}: {version.status_reason}", markup=False, highlight=False
                )
    if answer.next_page_token:
        console.print(f"more: --limit {limit * 2}")


def build_log(
    name: str = typer.Argument(..., help="The bot's name."),
    version: int = typer.Argument(
        0, min=bounds.VERSION.low, max=bounds.VERSION.high, help="The version (default: the newest)."
    ),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """What a version's build printed (its end, when long), how its validation went, and its A/B
    duel's verdict (submit --ab)."""
    with admin_client(server, admin_token) as client:
        info = client.call("GetVersion", admin_pb2.GetVersionRequest(bot=name, number=version))
        owner = _owns(client, name)
    if json:
        data = as_data(info)
        data["manifest"] = {key: manifest_value(value) for key, value in info.manifest.items()}
        if not info.HasField("ab"):
            data["ab"] = None
        data["ab_games"] = [as_data(ab) for ab in ab_games(info)]
        print_json(data)
        return
    console.print(f"[bold]{info.bot}[/] version {info.number}: {info.status}", highlight=False)
    if info.status_reason:
        console.print(info.status_reason, markup=False, highlight=False, soft_wrap=True)
    if not info.source:  # (every version has one, shown to its owner and the admin only)
        console.print("its build, manifest and stderr are its owner's and the admin's", highlight=False)
    for key, value in sorted(info.manifest.items()):
        shown = manifest_value(value)
        text = ", ".join(shown) if isinstance(shown, list) else shown
        console.print(f"{key}: {text}", markup=False, highlight=False, soft_wrap=True)
    if info.build_log.strip():
        console.print(info.build_log.rstrip(), markup=False, highlight=False)
    elif not owner:
        console.print(
            f"(the build log is private: only {info.bot}'s owner and the admin may read it)", highlight=False
        )
    else:
        console.print("(the build printed nothing)", highlight=False)
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
    for ab in ab_games(info):
        console.print(f"A/B duel: {ab_words(ab)}", markup=False, highlight=False, soft_wrap=True)


def ab_words(ab: admin_pb2.DuelProgress) -> str:
    """A game's duel as ``build-log`` says it: in plain words (a duel kept before it had words:
    the gate's line)."""
    if ab.words:
        return ab.words
    return ab.reason if ab.done else f"{ab.game}: {ab.matches} matches so far"


def manifest_value(text: str) -> str | list[str]:
    """A manifest value from the wire: a JSON list (``games``) as a list, any other text as it is."""
    if text.startswith("["):
        with contextlib.suppress(ValueError):
            value = json_module.loads(text)
            if isinstance(value, list):
                return [str(item) for item in value]
    return text


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


def _owns(client: AdminClient, name: str) -> bool:
    """Whether the caller may read the bot's private parts (the server leaves them out otherwise)."""
    me = client.call("WhoAmI", admin_pb2.WhoAmIRequest())
    if me.role == "admin":
        return True
    if me.role != "author":
        return False
    return bool(client.call("GetBot", admin_pb2.GetBotRequest(name=name)).author == me.author.name)
