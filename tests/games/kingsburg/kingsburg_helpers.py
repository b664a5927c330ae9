"""Building Kingsburg positions for tests: the rulebook's four players and forced dice."""

from __future__ import annotations

from kingmaker.games.kingsburg.state import KingsburgState
from kingmaker.games.rng import ScriptedRng

ANN, BRIAN, CINDY, DAVID = range(4)


FILLER = [2] * 300
"""Draws after an example's own: every later die shows a 3, so the game can run on."""


def position(players: int = 4, draws: list[int] | None = None) -> KingsburgState:
    """A game not yet started, Cindy-Ann-David-Brian order (the rulebook's random order),
    every enemy card the first of its year, and chance forced by ``draws`` (0-based) and
    then ``FILLER``."""
    order = [CINDY, ANN, DAVID, BRIAN] if players == 4 else list(range(players))
    rng = ScriptedRng([*(draws or []), *FILLER])
    return KingsburgState(players, rng, turn_order=order, enemy_deck=[0] * 5, start=False)


def dice(*faces: int) -> list[int]:
    """Scripted draws for these die faces."""
    return [face - 1 for face in faces]
