"""What a Kingdoms player may do on a turn. Rows count from 0 at the top, columns from 0 at the left.

A turn is one of: place a castle; draw a tile (then, as a second decision by the same seat,
place it); place the hidden starting tile; or pass, which is legal only when none of the others
is. In the No Luck variant the supply lies face up and the player chooses a tile instead of
drawing one, then places it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from kingmaker.games.kingdoms.pieces import Tile


@dataclass(frozen=True)
class PlaceCastle:
    """Put one of your castles of this printed rank on an empty space."""

    rank: int
    row: int
    column: int


@dataclass(frozen=True)
class DrawTile:
    """Draw a random tile from the face-down supply; you then place it (``PlaceDrawnTile``)."""


@dataclass(frozen=True)
class ChooseTile:
    """No Luck only: take this face-up tile from the supply; you then place it (``PlaceDrawnTile``)."""

    tile: Tile


@dataclass(frozen=True)
class PlaceDrawnTile:
    """Put the tile you have just drawn or chosen on an empty space."""

    row: int
    column: int


@dataclass(frozen=True)
class PlaceStartingTile:
    """Put your hidden starting tile, face up, on an empty space."""

    row: int
    column: int


@dataclass(frozen=True)
class Pass:
    """Do nothing: legal only when you can neither place a castle, draw nor place a tile."""


ACTION_TYPES: tuple[type, ...] = (
    PlaceCastle,
    DrawTile,
    ChooseTile,
    PlaceDrawnTile,
    PlaceStartingTile,
    Pass,
)
