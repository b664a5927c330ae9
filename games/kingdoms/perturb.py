"""Secret-changing copies of a state, for the conformance leak test.

A seat's secrets are its starting tile and the tile it has just drawn (the face-down supply
hides both); what nobody knows is the order of the face-down supply. In No Luck the supply is
face up and a chosen tile is public, so only the starting tiles (absent there) would be secret.
"""

from __future__ import annotations

import random

from kingmaker.games.api import GameState, Seat
from kingmaker.games.kingdoms.pieces import Tile
from kingmaker.games.kingdoms.state import KingdomsState


def perturb_secrets(state: GameState, seat: Seat | None, seed: int) -> GameState:
    """A copy where only ``seat``'s secrets (or, for None, the supply's order) differ."""
    assert isinstance(state, KingdomsState)
    other = state.clone()
    chooser = random.Random(seed)
    if seat is None:
        chooser.shuffle(other.supply)
    elif not other.variants.no_luck:
        held = other.starting_tiles[seat]
        if held is not None:
            other.starting_tiles[seat] = _swap_with_supply(other, held, chooser)
        if other.drawn_tile is not None and other.turn == seat:
            other.drawn_tile = _swap_with_supply(other, other.drawn_tile, chooser)
    return other


def _swap_with_supply(state: KingdomsState, tile: Tile, chooser: random.Random) -> Tile:
    """Put ``tile`` into the supply in place of a different supply tile, and return that one."""
    different = [i for i, candidate in enumerate(state.supply) if candidate != tile]
    if not different:
        return tile
    index = chooser.choice(different)
    taken, state.supply[index] = state.supply[index], tile
    return taken
