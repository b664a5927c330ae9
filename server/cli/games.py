"""``kingmaker games``: the games this installation referees, with their options."""

from __future__ import annotations

from rich.table import Table

from kingmaker.games.registry import all_games
from kingmaker.server.cli.common import console


def games() -> None:
    """List the games, their player counts and their match options."""
    summary = Table(title="Games")
    for column in ("name", "title", "players", "chance", "hidden info", "simultaneous", "score"):
        summary.add_column(column)
    options = Table(title="Match options (--option NAME=VALUE)")
    for column in ("game", "option", "default", "choices", "meaning"):
        options.add_column(column)
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
    console.print(summary)
    console.print(options)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
