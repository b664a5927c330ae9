"""`kingmaker init`: write a language's starter kit into a new folder.

The kit's files are copied with placeholders filled in (``_values``: the bot's name, its games,
its command); its manifest's ``games`` (every game, in the kit) becomes the bot's, and its
README gets the instructions every kit shares (``PLAYING.md``). A kit that generates its
protocol code at build time gets a copy of the contract's .proto files; the JSON-lines kit gets
its typed structures generated here from the same contract (``json_types``). Everything is
written into a temporary folder beside the target and moved into place at the end, so a
failure leaves nothing.
"""

from __future__ import annotations

import importlib.resources
import re
import shutil
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

from kingmaker.games.registry import game_names
from kingmaker.kits.languages import Language, install_line, kit_folder, language
from kingmaker.kits.manifest import MANIFEST

NAME = re.compile(r"[a-z][a-z0-9_-]{0,62}")
"""A bot name every toolchain accepts as a package name (npm, cargo, go, ...)."""

CORE_PROTOS = ("arena.proto", "common.proto")
"""The contract a bot needs from kingmaker.v1 (admin.proto is the command line's, not a bot's)."""


class InitError(ValueError):
    """Why nothing was written, in one line."""


def write_kit(folder: Path, language_name: str, games: Sequence[str] = (), name: str | None = None) -> Path:
    """Write the kit of ``language_name`` into ``folder`` (new, or an empty folder) and return it."""
    chosen = language(language_name)
    unknown = sorted(set(games) - set(game_names()))
    if unknown:
        raise InitError(f"unknown game {unknown[0]!r} (known games: {', '.join(game_names())})")
    bot_name = name if name is not None else folder.resolve().name
    if not NAME.fullmatch(bot_name):
        raise InitError(
            f"{bot_name!r} cannot name a bot package: use lower-case letters, digits, '-' and '_', "
            "starting with a letter (--name NAME)"
        )
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InitError(f"{folder} already exists and is not an empty folder: init writes a new one")
    values = _values(chosen, bot_name, list(games) or game_names())
    staging = folder.parent / f".{folder.name}.kingmaker-init"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        _copy_template(kit_folder(chosen.name), staging, values)
        _write_games(staging / MANIFEST, values["{{games}}"])
        with (staging / "README.md").open("a", encoding="utf-8") as readme:
            readme.write(_filled((Path(__file__).parent / "PLAYING.md").read_text(encoding="utf-8"), values))
        if chosen.copies_protos:
            _copy_protos(staging / "proto")
        for relative, render in generated_files(chosen).items():
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            (staging / relative).write_text(render())
        if folder.exists():
            folder.rmdir()
        staging.rename(folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder


GAMES_LINE = re.compile(r"^games = \[.*\]$", re.MULTILINE)
"""A kit's manifest names every game; ``init`` writes the author's choice in its place."""


def _write_games(manifest: Path, games: str) -> None:
    text = manifest.read_text(encoding="utf-8")
    line = f"games = [{games}]"
    text = GAMES_LINE.sub(line, text) if GAMES_LINE.search(text) else text + line + "\n"
    manifest.write_text(text, encoding="utf-8")


def _values(chosen: Language, bot_name: str, games: list[str]) -> dict[str, str]:
    """What each placeholder of a kit's files stands for."""
    run = tomllib.loads((kit_folder(chosen.name) / MANIFEST).read_text(encoding="utf-8"))["run"]
    return {
        "{{name}}": bot_name,
        "{{games}}": ", ".join(f'"{game}"' for game in games),
        "{{game_flags}}": " ".join(f"-g {game}" for game in games),
        "{{first_game}}": games[0],
        "{{apt}}": install_line([chosen]) or "nothing to install",
        "{{command}}": f"kingmaker bridge -- {run}" if chosen.protocol == "json-lines" else run,
    }


def generated_files(chosen: Language) -> dict[str, Callable[[], str]]:
    """Files `init` generates from the contract for a kit, by path inside the kit."""
    if chosen.name == "rust":
        from kingmaker.kits.json_types import rust_types

        return {"src/games.rs": rust_types}
    return {}


def contract_protos() -> dict[str, str]:
    """The .proto files a gRPC bot compiles, by path under ``proto/`` (as imports name them)."""
    found: dict[str, str] = {}
    core = importlib.resources.files("kingmaker.v1")
    for file in CORE_PROTOS:
        found[f"kingmaker/v1/{file}"] = core.joinpath(file).read_text(encoding="utf-8")
    for game in game_names():
        package = importlib.resources.files(f"kingmaker.{game}.v1")
        found[f"kingmaker/{game}/v1/{game}.proto"] = package.joinpath(f"{game}.proto").read_text(
            encoding="utf-8"
        )
    return found


def _copy_protos(target: Path) -> None:
    for relative, text in contract_protos().items():
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_text(text, encoding="utf-8")


def _copy_template(source: Path, target: Path, values: dict[str, str]) -> None:
    for path in sorted(source.rglob("*")):
        if "__pycache__" in path.parts or path.is_dir():
            continue
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            shutil.copy2(path, destination)
            continue
        destination.write_text(_filled(text, values), encoding="utf-8")
        shutil.copymode(path, destination)


def _filled(text: str, values: dict[str, str]) -> str:
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text
