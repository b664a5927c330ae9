"""``kingmaker prune``: remove the archives and built folders of versions retention does not keep
(docs/submissions.md, "Retention"); their rows and history stay, marked pruned."""

from __future__ import annotations

import typer

from kingmaker.server.cli.common import ServerOption, TokenOption, admin_client, console
from kingmaker.server.cli.output import JsonOption, as_data, print_json
from kingmaker.v1 import admin_pb2


def prune(
    bot: str = typer.Option("", "--bot", help="Only this bot's versions."),
    author: str = typer.Option(
        "", "--author", help="Only this author's bots (the admin; an author prunes their own)."
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would be pruned, and prune nothing."),
    json: bool = JsonOption,
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Remove the archives and built folders of old versions retention does not keep (--dry-run:
    say which).

    Each bot keeps its active version, the newest few others, and every version a build, match or
    league still needs; the others' rows and history stay, marked pruned. Their trial matches
    (validation's and the A/B duel's) go, and a kept version keeps its newest 100 duel matches a
    game."""
    request = admin_pb2.PruneVersionsRequest(bot=bot, author=author, dry_run=dry_run)
    with admin_client(server, admin_token) as client:
        answer = client.call("PruneVersions", request)
    if json:
        print_json(as_data(answer))
        return
    verb = "would prune" if dry_run else "pruned"
    if answer.trial_matches:
        dropped = "would drop" if dry_run else "dropped"
        console.print(f"{dropped} {answer.trial_matches} trial matches", highlight=False)
    if not answer.versions:
        console.print("nothing to prune: every version kept is still needed or among the newest")
        return
    for version in answer.versions:
        console.print(
            f"{verb} {version.bot}@{version.number} ({version.bytes / 2**20:.1f} MiB)", highlight=False
        )
    console.print(
        f"{verb} {len(answer.versions)} versions, {answer.bytes_freed / 2**20:.1f} MiB", highlight=False
    )
