"""How big each game's arrays are: the bound of every tuple in its values, and its action slots.

The types fix everything about an array but the length of tuples (``encoding.py``), so each game
states them here, from its rules: seats, board size, cards in a set. ``slots`` bounds the number
of legal actions at any decision, the size of the ``Discrete`` action space: action ``i`` is the
``i``-th legal action in the engine's own stable order, the index a bot may answer the referee
with. A game whose engine ever lists more raises ``BoundError`` naming the bound, never a wrong
array; ``tests/envs`` plays every game and seat count to keep these honest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Shape:
    slots: int
    """The most legal actions a seat can have at one decision."""
    bounds: Mapping[str, int]
    """``Class.field`` -> the most entries that tuple can hold."""


SEATS = 5
"""No game seats more: tuples with an entry per seat are bounded by it."""

SHAPES: dict[str, Shape] = {
    # A turn offers at most a castle of each of 4 ranks on each of the 30 spaces, a draw (or, in
    # No Luck, one of the 23 face-up tiles), the starting tile on each space, or Pass.
    "kingdoms": Shape(
        slots=4 * 30 + 23 + 30 + 1,
        bounds={
            "Observation.board": 5,
            "Row.cells": 6,
            "Observation.players": 4,
            "PlayerView.castles": 4,
            "Observation.face_up_supply": 23,
        },
    ),
    # At most 157 distinct plays of up to three cards (games/kings_road/plays.py).
    "kings_road": Shape(
        slots=157,
        bounds={
            "PlayCards.cards": 3,
            "Reveal.cards": 3,
            "RegionView.values": 4,
            "RegionView.markers": SEATS,
            "RegionView.nobles": SEATS,
            "Observation.regions": 8,
            "Observation.standings": SEATS,
            "Observation.hand": 11,
            # A seat's play and its Dragon or Witch each reveal once a round.
            "Observation.revealed": 2 * SEATS,
            "Observation.last_revealed": 2 * SEATS,
            "Observation.last_scored": 8,
        },
    ),
    # A placement is a non-empty subset of 3 coloured dice, with or without one white die, a +2
    # token, the Market's -1/0/+1 and the Envoy: 7 * 2 * 2 * 3 * 2 = 168, and the re-rolls and
    # Pass beside them; no other decision comes near.
    "kingsburg": Shape(
        slots=176,
        bounds={
            "Influence.coloured": 3,
            "Influence.white": 2,
            "DiceGroup.coloured": 3,
            "DiceGroup.white": 2,
            "AdvisorSpace.groups": 2,
            "ProvinceView.buildings": 20,
            "ProvinceView.coloured_dice": 3,
            "ProvinceView.white_dice": 2,
            "Observation.acting": SEATS,
            "Observation.turn_order": SEATS,
            "Observation.provinces": SEATS,
            "Observation.court": 18,
            "Observation.past_enemies": 5,
        },
    ),
    # Order (5 on display) to any of 5 slots, upgrades of 5 slots into a few advanced people,
    # recruits, wonders on display, the two buildings; or the yes/no of an optional step.
    "kingsville": Shape(
        slots=64,
        bounds={
            "KingsvilleObservation.wonder_display": 5,
            "KingsvilleObservation.order_display": 5,
            "KingsvilleObservation.supply": 8,
            "KingsvilleObservation.castles": 4,
            "PlayerView.slots": 5,
            "PlayerView.wonders": 12,
            "Slot.symbols": 4,
            "OrderCard.steps": 4,
        },
    ),
}
