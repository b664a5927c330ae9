"""Every game, seat count and combination of options, for tests that must cover them all."""

from __future__ import annotations

import itertools

from kingmaker.games.api import OptionValue
from kingmaker.games.registry import all_games


def seat_counts() -> list[tuple[str, int]]:
    return [
        (game.spec.name, players)
        for game in all_games()
        for players in range(game.spec.min_players, game.spec.max_players + 1)
    ]


def option_sets() -> list[tuple[str, int, dict[str, OptionValue]]]:
    """Each game at its smallest and largest table with every combination of its options."""
    cases = []
    for game in all_games():
        spec = game.spec
        choices = [option.choices or (option.default,) for option in spec.options]
        for values in itertools.product(*choices):
            options = dict(zip((option.name for option in spec.options), values, strict=True))
            for players in sorted({spec.min_players, spec.max_players}):
                cases.append((spec.name, players, options))
    return cases


def case_id(case: tuple[str, int, dict[str, OptionValue]]) -> str:
    name, players, options = case
    chosen = "+".join(key for key, value in options.items() if value) or "default"
    return f"{name}-{players}-{chosen}"
