"""``kingmaker author``: the admin registers the people who own bots, and manages their tokens
and quotas (docs/authors.md)."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime

import typer

from kingmaker.ladder.bots.author_bounds import BUILDS_AT_ONCE, STORED_BYTES, SUBMISSIONS_PER_HOUR, MiB
from kingmaker.server.cli.common import ServerOption, TokenOption, admin_client, console, server_address
from kingmaker.server.cli.output import JsonOption, as_data, print_json, print_table, table
from kingmaker.v1 import admin_pb2


def is_loopback(address: str) -> bool:
    """Whether ``address`` (host:port, [ipv6]:port or unix:/path) reaches this machine only."""
    if address.startswith("unix:"):
        return True
    host = address.rsplit(":", 1)[0].strip("[]")
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


app = typer.Typer(help="Register authors (the people who own bots) and manage them. Admin only.")

QuotaOption = typer.Option(None, "--quota", min=0, max=1000, help="How many bots they may own (default 5).")


@app.command("add")
def add(
    name: str = typer.Argument(..., help="A unique name: letters, digits, '.', '_' and '-'."),
    quota: int | None = QuotaOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Register an author and print their token (shown only this once): they log in with it."""
    request = admin_pb2.AddAuthorRequest(name=name)
    if quota is not None:
        request.bot_quota = quota
    address = server_address(server)
    with admin_client(address, admin_token) as client:
        answer = client.call("AddAuthor", request)
    author = answer.author
    console.print(f"registered author [bold]{author.name}[/] (up to {author.bot_quota} bots)")
    console.print(
        f"token (shown once; give it to {author.name} only): [bold]{answer.token}[/]", soft_wrap=True
    )
    console.print(f"they run: kingmaker login --server {address} --token {answer.token}", soft_wrap=True)
    if is_loopback(address):
        console.print(
            f"({address} is this machine's own address: from theirs, give the host name they reach it at)",
            soft_wrap=True,
        )


@app.command("list")
def list_authors(
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
    as_json: bool = JsonOption,
) -> None:
    """Every author: enabled or not, their bots and quota."""
    found: list[admin_pb2.AuthorInfo] = []
    with admin_client(server, admin_token) as client:
        token = ""
        while True:
            page = client.call("ListAuthors", admin_pb2.ListAuthorsRequest(page_token=token))
            found.extend(page.authors)
            token = page.next_page_token
            if not token:
                break
    if as_json:
        print_json([as_data(author) for author in found])
        return
    shown = table(
        "authors", ["author", "state", "bots", "quota", "builds", "per hour", "stored MiB", "since"]
    )
    for author in found:
        since = datetime.fromtimestamp(author.created_at, UTC).strftime("%Y-%m-%d")
        state = "enabled" if author.enabled else "disabled"
        stored = f"{author.stored_bytes / MiB:.0f} / {author.stored_bytes_bound / MiB:g}"
        shown.add_row(
            author.name, state, str(author.bots), str(author.bot_quota), str(author.builds_at_once),
            str(author.submissions_per_hour), stored, since,
        )  # fmt: skip
    if not found:
        console.print("no authors yet: kingmaker author add NAME")
        return
    print_table(shown)


@app.command("disable")
def disable(
    name: str = typer.Argument(..., help="The author's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Refuse the author's token from now on; their bots stay (disable those with `bot disable`)."""
    _set_enabled(name, False, server, admin_token)


@app.command("enable")
def enable(
    name: str = typer.Argument(..., help="The author's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Accept the author's token again."""
    _set_enabled(name, True, server, admin_token)


@app.command("rotate")
def rotate(
    name: str = typer.Argument(..., help="The author's name."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Give the author a new token; the old one stops working at once."""
    with admin_client(server, admin_token) as client:
        token = client.call("RotateAuthorToken", admin_pb2.RotateAuthorTokenRequest(name=name)).token
    console.print(f"new token for author [bold]{name}[/] (shown once): [bold]{token}[/]", soft_wrap=True)


@app.command("quota")
def quota(
    name: str = typer.Argument(..., help="The author's name."),
    bots: int | None = typer.Argument(
        None, min=0, max=1000, help="How many bots they may own (unchanged if not given)."
    ),
    builds_at_once: int | None = typer.Option(
        None,
        "--builds-at-once",
        min=BUILDS_AT_ONCE.low,
        max=BUILDS_AT_ONCE.high,
        help="Builds of theirs that run at once; the next ones wait, queued (default 1).",
    ),
    submissions_per_hour: int | None = typer.Option(
        None,
        "--submissions-per-hour",
        min=SUBMISSIONS_PER_HOUR.low,
        max=SUBMISSIONS_PER_HOUR.high,
        help="Submissions they may make in any hour (default 20).",
    ),
    stored_mib: int | None = typer.Option(
        None,
        "--stored-mib",
        min=0,
        max=STORED_BYTES.high // MiB,
        help="MiB of archives and built folders their versions may keep (default 1024).",
    ),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Set how many bots the author may own (bots they own beyond it stay), and their bounds:
    builds at once, submissions per hour, MiB stored."""
    request = admin_pb2.SetAuthorQuotaRequest(name=name, bot_quota=bots or 0, keep_bot_quota=bots is None)
    if builds_at_once is not None:
        request.builds_at_once = builds_at_once
    if submissions_per_hour is not None:
        request.submissions_per_hour = submissions_per_hour
    if stored_mib is not None:
        request.stored_bytes = stored_mib * MiB
    with admin_client(server, admin_token) as client:
        author = client.call("SetAuthorQuota", request)
    console.print(
        f"{author.name} may own {author.bot_quota} bots (owns {author.bots}); builds at once: "
        f"{author.builds_at_once}; submissions per hour: {author.submissions_per_hour}; stored: "
        f"{author.stored_bytes / MiB:.1f} of {author.stored_bytes_bound / MiB:g} MiB",
        highlight=False,
    )


def _set_enabled(name: str, enabled: bool, server: str | None, admin_token: str | None) -> None:
    request = admin_pb2.SetAuthorEnabledRequest(name=name, enabled=enabled)
    with admin_client(server, admin_token) as client:
        author = client.call("SetAuthorEnabled", request)
    console.print(f"author {author.name} is now {'enabled' if author.enabled else 'disabled'}")
