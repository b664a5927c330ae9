"""A bot folder's ``kingmaker.toml``: how to build and run the bot in it.

The format is shared with the submissions, which build and run what a manifest says::

    run = "./bot"          # required: the command line that starts the bot (shlex-split, no shell)
    build = "make"         # optional: a shell command (sh -c) run once in the folder, offline
    protocol = "grpc"      # optional: "grpc" (default) or "json-lines" (the bridge goes in front)
    language = "cpp"       # optional, informative
    games = ["kingdoms"]   # optional
"""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "kingmaker.toml"
PROTOCOLS = ("grpc", "json-lines")


class ManifestError(ValueError):
    """The manifest is missing or says something that cannot be run; the message is one line."""


@dataclass(frozen=True)
class Manifest:
    run: tuple[str, ...]
    """The command that starts the bot, split as a shell would but run without one."""
    build: str | None = None
    protocol: str = "grpc"
    language: str | None = None
    games: tuple[str, ...] = ()


def read_manifest(folder: Path) -> Manifest:
    """The manifest of the bot in ``folder``; ``ManifestError`` says what is wrong with it."""
    path = folder / MANIFEST
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"{path}: no such file (a bot folder needs a {MANIFEST})") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ManifestError(f"{path}: {error}") from None
    unknown = sorted(set(data) - {"run", "build", "protocol", "language", "games"})
    if unknown:
        raise ManifestError(f"{path}: unknown key {unknown[0]!r}")
    run = data.get("run")
    if not isinstance(run, str) or not run.strip():
        raise ManifestError(f"{path}: 'run' must be a command line, e.g. run = \"./bot\"")
    try:
        argv = tuple(shlex.split(run))
    except ValueError as error:
        raise ManifestError(f"{path}: 'run' does not split into words: {error}") from None
    build = data.get("build")
    if build is not None and not isinstance(build, str):
        raise ManifestError(f"{path}: 'build' must be a string (a shell command)")
    protocol = data.get("protocol", "grpc")
    if protocol not in PROTOCOLS:
        raise ManifestError(f"{path}: 'protocol' must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    language = data.get("language")
    if language is not None and not isinstance(language, str):
        raise ManifestError(f"{path}: 'language' must be a string")
    games = data.get("games", [])
    if not isinstance(games, list) or not all(isinstance(game, str) for game in games):
        raise ManifestError(f"{path}: 'games' must be a list of game names")
    return Manifest(argv, build or None, protocol, language, tuple(games))
