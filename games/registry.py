"""The games kingmaker referees, by name. Adding a game is one line in ``_MODULES``."""

from __future__ import annotations

import importlib

from kingmaker.games.api import Game

# name -> module that defines ``GAME``; imported on first use so a CLI call loads only what it needs.
_MODULES: dict[str, str] = {
    "kingdoms": "kingmaker.games.kingdoms",
    "kingsburg": "kingmaker.games.kingsburg",
    "kingsville": "kingmaker.games.kingsville",
    "kings_road": "kingmaker.games.kings_road",
}


class UnknownGameError(KeyError):
    """No game is registered under that name."""

    def __str__(self) -> str:
        return str(self.args[0])


def game_names() -> list[str]:
    """The registered names, sorted."""
    return sorted(_MODULES)


def get_game(name: str) -> Game:
    """The game registered as ``name``; ``UnknownGameError`` names the known ones otherwise."""
    module = _MODULES.get(name)
    if module is None:
        known = ", ".join(game_names())
        raise UnknownGameError(f"unknown game {name!r} (known games: {known})")
    game = importlib.import_module(module).GAME
    assert isinstance(game, Game)
    return game


def all_games() -> list[Game]:
    return [get_game(name) for name in game_names()]
