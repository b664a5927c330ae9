"""The rulebook's three variants as match options. They change independent parts of the game
(which castles and how many epochs; how tiles reach the board; when lines are scored), so they
are three booleans that combine freely; all off is the standard game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kingmaker.games.api import OptionSpec, OptionValue

LAST_CASTLE = "down_to_the_last_castle"
NO_LUCK = "no_luck"
SCORE_AS_YOU_GO = "score_as_you_go"

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        LAST_CASTLE,
        False,
        "Down to the Last Castle: every player has all ten castles, all placed castles are spent "
        "each epoch, and the game ends after the epoch in which someone places their last castle.",
        (False, True),
    ),
    OptionSpec(
        NO_LUCK,
        False,
        "No Luck: the supply lies face up, there are no starting tiles, and a player chooses "
        "which tile to take instead of drawing one.",
        (False, True),
    ),
    OptionSpec(
        SCORE_AS_YOU_GO,
        False,
        "Score as You Go: each row and column is scored as soon as it is full, not at epoch end.",
        (False, True),
    ),
)


@dataclass(frozen=True)
class Variants:
    """The variant switches of one match."""

    last_castle: bool = False
    no_luck: bool = False
    score_as_you_go: bool = False

    @classmethod
    def from_options(cls, options: Mapping[str, OptionValue]) -> Variants:
        """From options already validated by ``Game.resolve_options``."""
        return cls(
            last_castle=bool(options.get(LAST_CASTLE, False)),
            no_luck=bool(options.get(NO_LUCK, False)),
            score_as_you_go=bool(options.get(SCORE_AS_YOU_GO, False)),
        )
