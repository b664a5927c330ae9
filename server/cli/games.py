"""``kingmaker games``: the games this installation referees, with their options."""

from __future__ import annotations

from typing import Any

from kingmaker.games.api import GameSpec
from kingmaker.games.registry import all_games
from kingmaker.server.cli.output import JsonOption, print_json, print_table, table


def games(json: bool = JsonOption) -> None:
    """List the games, their player counts and their match options."""
    if json:
        print_json([_game_data(game.spec) for game in all_games()])
        return
    summary = table("Games", ("name", "title", "players", "chance", "hidden", "simult.", "score"), ("title",))
    options = table(
        "Match options (--option NAME=VALUE)", ("game", "option", "default", "choices", "meaning"),
        ("choices", "meaning"),
    )  # fmt: skip
    for game in all_games():
        spec = game.spec
        summary.add_row(
            spec.name,
            spec.title,
            f"{spec.min_players}-{spec.max_players}",
            _yes(spec.chance),
            _yes(spec.hidden_information),
            _yes(spec.simultaneous),
            spec.score_name,
        )
        for option in spec.options:
            choices = ", ".join(str(choice).lower() for choice in option.choices) or "any"
            options.add_row(spec.name, option.name, str(option.default).lower(), choices, option.help)
    print_table(summary)
    print_table(options)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _game_data(spec: GameSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "title": spec.title,
        "edition": spec.edition,
        "min_players": spec.min_players,
        "max_players": spec.max_players,
        "chance": spec.chance,
        "hidden_information": spec.hidden_information,
        "simultaneous": spec.simultaneous,
        "score_name": spec.score_name,
        "options": [
            {"name": o.name, "default": o.default, "choices": list(o.choices), "help": o.help}
            for o in spec.options
        ],
    }
