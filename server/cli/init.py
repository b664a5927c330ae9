"""``kingmaker init DIR --lang LANG``: write a starter bot (docs/languages.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from kingmaker.kits.languages import LANGUAGES, UnknownLanguageError, language
from kingmaker.kits.starter import InitError, write_kit
from kingmaker.server.cli.common import console, fail

LANGUAGE_NAMES = ", ".join(known.name for known in LANGUAGES)


def init(
    folder: Path = typer.Argument(..., help="The new bot's folder (it must not exist, or be empty)."),
    lang: str = typer.Option(..., "--lang", "-l", help=f"The language: {LANGUAGE_NAMES}."),
    game: list[str] = typer.Option(
        [], "--game", "-g", help="A game the bot plays (repeat for several). Default: every game."
    ),
    name: str | None = typer.Option(None, "--name", help="The bot's name. Default: the folder's name."),
) -> None:
    """Write a starter bot: a random bot for every game in LANG, its kingmaker.toml and a README
    that says how to build it, play it against the sample bots and submit it."""
    try:
        written = write_kit(folder, lang, game, name)
        chosen = language(lang)
    except (InitError, UnknownLanguageError) as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {folder}: {error.strerror or error}")
    console.print(f"wrote a {chosen.title} bot in {written} ({chosen.protocol}); next: {written}/README.md")
