"""kingmaker.games: the rules engines. Standard library only: no protobuf, no I/O, no clocks."""

from kingmaker.games.api import (
    Game,
    GameSpec,
    GameState,
    OptionsError,
    OptionSpec,
    Result,
    RulesError,
    Seat,
)
from kingmaker.games.registry import UnknownGameError, all_games, game_names, get_game

__all__ = [
    "Game",
    "GameSpec",
    "GameState",
    "OptionSpec",
    "OptionsError",
    "Result",
    "RulesError",
    "Seat",
    "UnknownGameError",
    "all_games",
    "game_names",
    "get_game",
]
