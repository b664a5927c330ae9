"""The leak-test hook: a copy of a game whose undrawn decks are in another order."""

from __future__ import annotations

from kingmaker.games import rng as chance
from kingmaker.games.kingsville.state import KingsvilleState


def reshuffled(state: KingsvilleState, seed: int) -> KingsvilleState:
    """A clone with the current and future decks reshuffled: what no seat may know."""
    other = state.clone()
    rng = chance.SeededRng(seed)
    chance.shuffle(rng, other.wonder_deck)
    chance.shuffle(rng, other.order_deck)
    for wonders in other.future_wonders[other.age :]:
        chance.shuffle(rng, wonders)
    for orders in other.future_orders[other.age :]:
        chance.shuffle(rng, orders)
    return other
