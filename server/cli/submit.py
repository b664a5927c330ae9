"""``kingmaker submit PATH --bot NAME``: send a bot's folder (or an archive) to the server, then
follow its new version live until it plays, or until its build or validation fails."""

from __future__ import annotations

import hashlib
import tempfile
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.text import Text

from kingmaker.server.cli.common import (
    AdminClient,
    ServerOption,
    TokenOption,
    admin_client,
    console,
    errors,
    fail,
)
from kingmaker.server.packing import archive_format, pack_folder

if TYPE_CHECKING:
    from kingmaker.v1 import admin_pb2

CHUNK_BYTES = 1024 * 1024
"""What one message of the stream carries (the server's limit per chunk)."""
LOG_LINES = 30
"""How much of a failed build's log is printed (``bot build-log`` shows all of it)."""


def submit(
    path: Path = typer.Argument(
        ..., help="The bot's folder, or an archive of it (.tar.gz, .tgz, .tar, .zip)."
    ),
    bot: str = typer.Option(..., "--bot", "-b", help="The bot's name (the first submission creates it)."),
    game: list[str] = typer.Option(
        [], "--game", "-g", help="A game it plays (repeatable). Default: the games of its kingmaker.toml."
    ),
    ab: bool = typer.Option(
        False, "--ab", help="Replace the playing version only if an A/B duel finds the new one not weaker."
    ),
    wait: bool = typer.Option(True, "--wait/--no-wait", help="Follow the version until it plays or fails."),
    server: str | None = ServerOption,
    admin_token: str | None = TokenOption,
) -> None:
    """Submit a new version of a bot (a folder or an archive): built and validated by the server.

    A folder is packed without what its .gitignore and .kingmakerignore list; the server builds it
    in its jail, validates it against random bots, and makes it the version that plays."""
    from kingmaker.v1 import admin_pb2

    with tempfile.TemporaryDirectory(prefix="kingmaker-submit-") as staging:
        archive, kind = _archive(path, Path(staging))
        games = game or _manifest_games(path)
        size = archive.stat().st_size
        with archive.open("rb") as handle:
            sha256 = hashlib.file_digest(handle, "sha256").hexdigest()
        header = admin_pb2.SubmitHeader(bot=bot, games=games, format=kind, size=size, sha256=sha256, ab=ab)
        with admin_client(server, admin_token) as client:
            version = client.call("Submit", _chunks(header, archive), timeout=600)
            console.print(
                f"submitted [bold]{bot}[/] version {version.number} ({size / 1024:.1f} KiB, "
                f"sha256 {sha256[:12]}): {version.status}{_place(version)}",
                highlight=False,
            )
            if wait:
                follow_version(client, bot, version.number)


def follow_version(client: AdminClient, bot: str, number: int) -> None:
    """Print the version's steps as they happen; exit non-zero when it fails."""
    from kingmaker.v1 import admin_pb2

    last: str | None = None
    seen: dict[str, tuple[int, bool]] = {}
    started = time.monotonic()
    with console.status(f"{bot} version {number}: building") as status:
        for version in client.stream("WatchVersion", admin_pb2.GetVersionRequest(bot=bot, number=number)):
            elapsed = time.monotonic() - started
            clock = build_clock(version)
            status.update(f"{bot} version {number}: {version.status} ({_elapsed(elapsed)}){clock}")
            for line in version.build_output.splitlines():  # the build's log, as it is written
                console.print(log_line(_elapsed(elapsed), line), highlight=False, soft_wrap=True)
            if version.status != last:
                last = version.status
                if last != "building":
                    console.print(f"[dim]{_elapsed(elapsed):>6}[/]", end=" ", highlight=False)
                _say(version)
            for ab in ab_games(version):  # (the games play side by side: each says where it is)
                if seen.get(ab.game) != (ab.seeds, ab.done):
                    seen[ab.game] = (ab.seeds, ab.done)
                    console.print(
                        ab_line(version.bot, version.number, ab),
                        markup=False,
                        highlight=False,
                        soft_wrap=True,
                    )
    final = client.call("GetVersion", admin_pb2.GetVersionRequest(bot=bot, number=number))
    if final.status == "build_failed":
        lines = final.build_log.rstrip().splitlines()[-LOG_LINES:]
        if lines:
            errors.print("the build's last lines:", highlight=False)
            errors.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)
        fail(f"{bot} version {number} did not build: {final.status_reason}")
    if final.status == "rejected":
        for match in final.validation:
            if not match.passed and match.stderr_tail.strip():
                errors.print(f"the end of its stderr in {match.game} (seat {match.seat}):", highlight=False)
                errors.print(match.stderr_tail.rstrip(), markup=False, highlight=False, soft_wrap=True)
        fail(f"{bot} version {number} was rejected: {final.status_reason}")


def log_line(elapsed: str, line: str) -> Text:
    """A line of the build's log after the time it came, as written: a ``Text``, never markup
    (rich's ``escape`` doubled a Makefile's trailing continuation backslash)."""
    return Text.assemble((f"{elapsed:>6}", "dim"), " ", line)


def ab_line(bot: str, number: int, ab: admin_pb2.DuelProgress) -> str:
    """One game's A/B duel in plain words, seed by seed (``still undecided in Kingdoms: 40 of at
    most 800 matches against v2, -3 ± 40 Elo, about 6 min left``); its last line is the gate's
    verdict (``not weaker than v2 in Kingdoms: 212 matches, -3 ± 14 Elo``)."""
    if ab.done:
        return f"  A/B {bot} v{number}: {ab.words}" if ab.words else f"  {ab.reason}"
    return (
        f"  A/B {bot} v{number}: {ab.words or ab.game} "
        f"(LLR {ab.llr:+.2f}; it decides at {ab.llr_lower:+.2f} or {ab.llr_upper:+.2f})"
    )


def ab_games(version: admin_pb2.VersionInfo) -> list[admin_pb2.DuelProgress]:
    """Each game's duel (a version kept from before side-by-side games has only ``ab``)."""
    if version.ab_games:
        return list(version.ab_games)
    return [version.ab] if version.HasField("ab") else []


def build_clock(version: admin_pb2.VersionInfo) -> str:
    """Where a running build stands against its limit: ", build 42 of 600 CPU-s in 1m10s"."""
    if version.status != "building" or not version.build_cpu_limit:
        return ""
    used, limit = version.build_cpu_seconds, version.build_cpu_limit
    return f", build {used:.0f} of {limit:g} CPU-s in {_elapsed(version.build_wall_seconds)}"


def _elapsed(seconds: float) -> str:
    """Time since the submission: "42s", "7m05s"."""
    whole = int(seconds)
    return f"{whole}s" if whole < 60 else f"{whole // 60}m{whole % 60:02d}s"


def _say(version: admin_pb2.VersionInfo) -> None:
    if version.status == "validating":
        detected = version.manifest.get("detected", "")
        how = f" ({detected})" if detected else ""
        console.print(f"built{how}; validating against random bots", highlight=False, soft_wrap=True)
    elif version.status == "active":
        played = len(version.validation)
        console.print(
            f"[bold green]{version.bot} version {version.number} is active[/]: passed {played} "
            "validation matches; it plays from now on",
            highlight=False,
        )
    elif version.status == "testing":
        console.print(
            'validated; now an A/B duel against the active version in each of its games: H0 "it is 50 Elo '
            'weaker", H1 "it is not weaker"; it replaces the active version only if every game accepts H1',
            highlight=False,
        )
    elif version.status == "queued":
        console.print(f"queued{_place(version)}", highlight=False)
    elif version.status not in ("building", "build_failed", "rejected"):
        console.print(f"{version.status}{': ' + version.status_reason if version.status_reason else ''}")


def _place(version: admin_pb2.VersionInfo) -> str:
    """Where a queued version stands: its author's builds at once are taken."""
    if version.status != "queued" or not version.queue_place:
        return ""
    return f" ({version.queue_place} in line: it starts when one of your builds ends; bound: builds at once)"


def _archive(path: Path, staging: Path) -> tuple[Path, str]:
    """The archive to send and its format: a folder is packed, an archive is sent as it is."""
    if path.is_dir():
        packed = staging / "bot.tar.gz"
        with packed.open("wb") as output:
            pack_folder(path, output)
        return packed, "tar.gz"
    kind = archive_format(path)
    if not path.is_file() or kind is None:
        fail(f"{path} is neither a folder nor an archive (.tar.gz, .tgz, .tar, .zip)")
    return path, kind


def _manifest_games(path: Path) -> list[str]:
    """The games a folder's kingmaker.toml names (the server reads the rest of it)."""
    manifest = path / "kingmaker.toml"
    if not path.is_dir() or not manifest.is_file():
        return []
    try:
        games = tomllib.loads(manifest.read_text(errors="replace")).get("games", [])
    except tomllib.TOMLDecodeError:
        return []  # the server's build says what is wrong with it
    return [game for game in games if isinstance(game, str)] if isinstance(games, list) else []


def _chunks(header: admin_pb2.SubmitHeader, archive: Path) -> Iterator[admin_pb2.SubmitChunk]:
    from kingmaker.v1 import admin_pb2

    yield admin_pb2.SubmitChunk(header=header)
    with archive.open("rb") as handle:
        while data := handle.read(CHUNK_BYTES):
            yield admin_pb2.SubmitChunk(data=data)
