"""``kingmaker init DIR --lang LANG``: write a starter bot (docs/languages.md), asking which games
it plays when run at a terminal without ``--games``."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from kingmaker.games.registry import game_names
from kingmaker.kits.languages import LANGUAGES, UnknownLanguageError, language
from kingmaker.kits.starter import InitError, write_kit
from kingmaker.server.cli.common import console, fail

LANGUAGE_NAMES = ", ".join(known.name for known in LANGUAGES)
EVERY = "all"
"""What ``--games`` and the question take for every game."""


def init(
    folder: Path = typer.Argument(..., help="The new bot's folder (it must not exist, or be empty)."),
    lang: str = typer.Option(..., "--lang", "-l", help=f"The language: {LANGUAGE_NAMES}."),
    games: str | None = typer.Option(
        None,
        "--games",
        help="The games the bot plays, comma-separated (kingdoms,kingsburg), or `all`. Default: asked "
        "at a terminal, else every game.",
    ),
    game: list[str] = typer.Option([], "--game", "-g", help="A game the bot plays (repeat for several)."),
    name: str | None = typer.Option(None, "--name", help="The bot's name. Default: the folder's name."),
) -> None:
    """Write a starter bot: a random bot for every game in LANG, its kingmaker.toml (with the games
    it plays) and a README that says how to build it, play it against the sample bots and submit it."""
    chosen_games = [*game, *(named_games(games) if games is not None else [])]
    if not chosen_games and interactive():
        chosen_games = ask_games(name or folder.resolve().name)
    try:
        written = write_kit(folder, lang, chosen_games, name)
        chosen = language(lang)
    except (InitError, UnknownLanguageError) as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {folder}: {error.strerror or error}")
    plays = (
        ", ".join(chosen_games)
        if chosen_games
        else f"every game ({', '.join(game_names())}; --games to choose)"
    )
    console.print(
        f"wrote a {chosen.title} bot in {written} ({chosen.protocol}) that plays {plays}; "
        f"next: {written}/README.md",
        markup=False,
        highlight=False,
    )


def interactive() -> bool:
    """Whether a person answers at this terminal (then ``init`` asks for the games)."""
    return sys.stdin.isatty()


def named_games(text: str) -> list[str]:
    """The games of "kingdoms, kingsburg" (or every game for ``all``); an unknown one refused with
    the games there are (``InitError``'s line, through ``fail``)."""
    names = [word.strip() for word in text.split(",") if word.strip()]
    if names == [EVERY]:
        return game_names()
    unknown = [word for word in names if word not in game_names()]
    if unknown or not names:
        said = f"unknown game {unknown[0]!r}" if unknown else "no game named"
        fail(f"{said}: choose among {', '.join(game_names())} (comma-separated), or {EVERY}")
    return list(dict.fromkeys(names))


def ask_games(bot: str) -> list[str]:
    """Ask until the answer names known games; the answer is what the manifest says."""
    known = ", ".join(game_names())
    while True:
        answer = typer.prompt(f"Which games will {bot} play? ({known}; comma-separated, or {EVERY})")
        try:
            return named_games(answer)
        except typer.Exit:  # its line said what is wrong: ask again
            continue
