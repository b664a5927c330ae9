"""What a bot's folder says about itself: ``kingmaker.toml``, or the layout detected.

The manifest (read with ``tomllib``)::

    run = "./bot"            # required: the command that starts the bot (split like a shell, no shell)
    build = "make"           # optional: a shell command (sh -c) run once in the folder, offline
    protocol = "grpc"        # optional: "grpc" (default), "json-lines" (the bridge goes in front)
                             #   or "json-lines-compact" (the same, requests in the compact form)
    language = "cpp"         # optional, informative
    games = ["kingdoms"]     # optional: the games it plays (submit's -g wins when given)

Without one, the first layout of ``LAYOUTS`` the folder has is taken, and ``Manifest.detected``
says which and what it chose. docs/submissions.md has the table.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "kingmaker.toml"
PROTOCOLS = ("grpc", "json-lines", "json-lines-compact")
KEYS = ("run", "build", "protocol", "language", "games")
PYTHONS = ("python", "python3")
"""A ``run`` that starts with one of these runs with the server's own interpreter (SDK, grpc)."""


class ManifestError(ValueError):
    """The folder's manifest is wrong, or it has none and no known layout; one line."""


@dataclass(frozen=True)
class Manifest:
    run: tuple[str, ...]
    build: str = ""
    protocol: str = "grpc"
    language: str = ""
    games: tuple[str, ...] = ()
    detected: str = ""
    """Empty when it came from kingmaker.toml; else the layout found and what was chosen."""

    def as_dict(self) -> dict[str, str | list[str]]:
        """The manifest as the version keeps and shows it: strings, and ``games`` a list, as
        kingmaker.toml says it."""
        shown: dict[str, str | list[str]] = {
            "run": shlex.join(self.run),
            "build": self.build,
            "protocol": self.protocol,
        }
        shown |= {"language": self.language, "games": list(self.games), "detected": self.detected}
        return {key: value for key, value in shown.items() if value}


def read_manifest(folder: Path) -> Manifest:
    """The folder's manifest, or the layout detected; ``ManifestError`` when neither."""
    path = folder / MANIFEST
    if path.is_file():
        return parse_manifest(path.read_text(errors="replace"))
    for name, detect in LAYOUTS:
        found = detect(folder)
        if found is not None:
            run, build, language = found
            chose = f"run `{shlex.join(run)}`" + (f", build `{build}`" if build else "")
            return Manifest(run, build, language=language, detected=f"{name}: {chose}")
    names = ", ".join(name for name, _ in LAYOUTS)
    raise ManifestError(f"no {MANIFEST} and no layout the server knows ({names}): add a {MANIFEST}")


def parse_manifest(text: str) -> Manifest:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ManifestError(f"{MANIFEST} is not valid TOML: {error}") from None
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ManifestError(f"{MANIFEST}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    run = data.get("run")
    if not isinstance(run, str) or not run.strip():
        raise ManifestError(f'{MANIFEST} needs run = "the command that starts the bot"')
    try:
        argv = tuple(shlex.split(run))
    except ValueError as error:
        raise ManifestError(f"{MANIFEST}: cannot split run {run!r}: {error}") from None
    strings = {key: data.get(key, "") for key in ("build", "protocol", "language")}
    for key, value in strings.items():
        if not isinstance(value, str):
            raise ManifestError(f"{MANIFEST}: {key} must be a string")
    protocol = str(strings["protocol"]) or "grpc"
    if protocol not in PROTOCOLS:
        raise ManifestError(f"{MANIFEST}: protocol must be one of {', '.join(PROTOCOLS)}, not {protocol!r}")
    games = data.get("games", [])
    if not isinstance(games, list) or not all(isinstance(game, str) for game in games):
        raise ManifestError(f'{MANIFEST}: games must be a list of names, like ["kingdoms"]')
    return Manifest(argv, str(strings["build"]), protocol, str(strings["language"]), tuple(games))


def launch_command(run: tuple[str, ...] | list[str], protocol: str) -> list[str]:
    """The argv that starts a built bot in its folder: ``python`` is the server's interpreter, and a
    JSON-lines bot is started behind the bridge (``kingmaker bridge -- RUN...``)."""
    argv = list(run)
    if argv and argv[0] in PYTHONS:
        argv[0] = sys.executable
    if protocol == "json-lines":
        return [sys.executable, "-m", "kingmaker", "bridge", "--", *argv]
    if protocol == "json-lines-compact":
        return [sys.executable, "-m", "kingmaker", "bridge", "--compact", "--", *argv]
    return argv


# ---- layouts, in the order they are tried --------------------------------------------------

Detected = tuple[tuple[str, ...], str, str]
"""(run, build, language)"""


def _python(name: str) -> Callable[[Path], Detected | None]:
    def detect(folder: Path) -> Detected | None:
        return (("python", name), "", "python") if (folder / name).is_file() else None

    return detect


def _node(folder: Path) -> Detected | None:
    package = folder / "package.json"
    if not package.is_file():
        return None
    try:
        data = json.loads(package.read_text(errors="replace"))
    except ValueError:
        data = {}
    data = data if isinstance(data, dict) else {}
    main = data.get("main") if isinstance(data.get("main"), str) else "index.js"
    scripts = data.get("scripts")
    build = "npm run build --offline" if isinstance(scripts, dict) and "build" in scripts else ""
    return ("node", str(main)), build, "javascript"


def _make(folder: Path) -> Detected | None:
    makefile = next((folder / name for name in ("Makefile", "makefile") if (folder / name).is_file()), None)
    if makefile is None:
        return None
    program = "./MyBot" if "MyBot" in makefile.read_text(errors="replace") else "./bot"
    return (program,), "make", "c/c++"


def _cmake(folder: Path) -> Detected | None:
    lists = folder / "CMakeLists.txt"
    if not lists.is_file():
        return None
    target = re.search(r"add_executable\s*\(\s*([\w.-]+)", lists.read_text(errors="replace"))
    name = target.group(1) if target else "bot"
    return (f"./build/{name}",), "cmake -S . -B build && cmake --build build", "c++"


def _go(folder: Path) -> Detected | None:
    if not (folder / "go.mod").is_file():
        return None
    if (folder / "vendor").is_dir():
        build = "go build -mod=vendor -o bot ."
    else:  # Debian's packaged Go libraries (golang-*-dev), in GOPATH mode
        build = "GO111MODULE=off GOPATH=/usr/share/gocode go build -o bot ."
    return ("./bot",), f"GOCACHE=/tmp/go-cache GOFLAGS=-buildvcs=false {build}", "go"


def _cargo(folder: Path) -> Detected | None:
    cargo = folder / "Cargo.toml"
    if not cargo.is_file():
        return None
    try:
        name = tomllib.loads(cargo.read_text(errors="replace")).get("package", {}).get("name", "bot")
    except tomllib.TOMLDecodeError:
        name = "bot"
    return (f"./target/release/{name}",), "cargo build --release --offline", "rust"


def _maven(folder: Path) -> Detected | None:
    if not (folder / "pom.xml").is_file():
        return None
    return ("java", "-jar", "bot.jar"), "mvn -o -q package && cp target/*.jar bot.jar", "java"


def _java(folder: Path) -> Detected | None:
    sources = sorted(folder.glob("*.java"))
    if len(sources) != 1:
        return None
    main = sources[0].stem
    return ("java", "-cp", "classes", main), f"javac -d classes {sources[0].name}", "java"


LAYOUTS: tuple[tuple[str, Callable[[Path], Detected | None]], ...] = (
    ("bot.py", _python("bot.py")),
    ("main.py", _python("main.py")),
    ("package.json", _node),
    ("Makefile", _make),
    ("CMakeLists.txt", _cmake),
    ("go.mod", _go),
    ("Cargo.toml", _cargo),
    ("pom.xml", _maven),
    ("a single .java file", _java),
)
