"""King's Road (Reiner Knizia, Grail Games 2017): area majority with simultaneous card play.

PLACEHOLDER
"""

from __future__ import annotations

from collections.abc import Mapping

from kingmaker.games.api import Game, OptionValue
from kingmaker.games.kings_road.state import PERMANENT_NOBLES, SPEC, KingsRoadState
from kingmaker.games.kings_road.values import (
    Card,
    Observation,
    Phase,
    PlayCards,
    PlayerView,
    RegionView,
    Reveal,
)


def _create(players: int, seed: int, options: Mapping[str, OptionValue]) -> KingsRoadState:
    # King's Road has no chance: the seed is accepted for the common interface and not used.
    return KingsRoadState(players, permanent_nobles=bool(options[PERMANENT_NOBLES]))


GAME = Game(spec=SPEC, create=_create)

__all__ = [
    "GAME",
    "Card",
    "KingsRoadState",
    "Observation",
    "Phase",
    "PlayCards",
    "PlayerView",
    "RegionView",
    "Reveal",
]
