"""The leak test's hook: change only what one seat (or nobody) may know about the enemies.

The only hidden information in Kingsburg is the enemies deck: one card per year, face down.
A seat that influenced the General or the Queen this year knows this year's card; nobody knows
the later years' cards.
"""

from __future__ import annotations

import random

from kingmaker.games.api import GameState, Seat
from kingmaker.games.kingsburg.data import CARDS_PER_YEAR, YEARS
from kingmaker.games.kingsburg.state import KingsburgState


def _other_card(current: int, chooser: random.Random) -> int:
    return (current + chooser.randrange(1, CARDS_PER_YEAR)) % CARDS_PER_YEAR


def perturb_secrets(state: GameState, seat: Seat | None, seed: int) -> GameState:
    """A copy in which only ``seat``'s secret (its peeked card, if it alone peeked) or, for
    ``None``, the cards nobody has seen, are different."""
    assert isinstance(state, KingsburgState)
    copy = state.clone()
    chooser = random.Random(seed)
    peekers = {s for s, p in enumerate(state.provinces) if p.peeked_year == state.year}
    this_year = state.year - 1
    if seat is None:
        later = range(this_year + 1, YEARS)
        for year_index in later:
            copy.enemy_deck[year_index] = _other_card(copy.enemy_deck[year_index], chooser)
        if not peekers and not state.revealed and not state.is_over():
            copy.enemy_deck[this_year] = _other_card(copy.enemy_deck[this_year], chooser)
    elif peekers == {seat} and not state.revealed and not state.is_over():
        copy.enemy_deck[this_year] = _other_card(copy.enemy_deck[this_year], chooser)
    return copy
