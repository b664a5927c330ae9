"""The pieces of Kingdoms: the 23 tiles, the castles, and the board's size.

Counts and values come from the rulebook; the tile names from section 4 of the project's
rules-data (the names the book's scoring example uses, plus the project edition's own names for
the tiles no source names: +6 "City", -1 "Swamp", -2 "Bandits", -4 "Plague"). Names are for
display only and never change a rule.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

ROWS = 5
COLUMNS = 6
SPACES = ROWS * COLUMNS
STANDARD_EPOCHS = 3
STARTING_GOLD = 50
HIGHEST_RANK = 4


class TileKind(enum.Enum):
    """What a tile does when its row and column are scored."""

    RESOURCE = enum.auto()
    """Worth its (positive) value."""
    HAZARD = enum.auto()
    """Worth its (negative) value."""
    MOUNTAIN = enum.auto()
    """Splits its row and its column into parts that are scored separately."""
    DRAGON = enum.auto()
    """Resources in its row part and its column part count nothing."""
    GOLD_MINE = enum.auto()
    """Doubles the value of the other tiles in its row part and its column part."""
    WIZARD = enum.auto()
    """Each orthogonally adjacent castle counts one rank higher, in its row and its column."""


@dataclass(frozen=True)
class Tile:
    """One tile. Two tiles of the same kind and value are identical in every respect."""

    kind: TileKind
    value: int
    """+1..+6 for a resource, -1..-6 for a hazard, 0 for the special tiles."""
    name: str


@dataclass(frozen=True)
class Castle:
    """A castle on the board."""

    owner: int
    """The seat that placed it."""
    rank: int
    """Its printed rank, 1 to 4 (the wizard's bonus is not included)."""


RESOURCE_NAMES = {1: "Village", 2: "Farm", 3: "Town", 4: "Windmill", 5: "Knight", 6: "City"}
HAZARD_NAMES = {
    -1: "Swamp",
    -2: "Bandits",
    -3: "Dire Wolves",
    -4: "Plague",
    -5: "Raider",
    -6: "Troll",
}


def _tile_set() -> tuple[Tile, ...]:
    resources = [
        Tile(TileKind.RESOURCE, value, RESOURCE_NAMES[value]) for value in range(1, 7) for _copy in range(2)
    ]
    hazards = [Tile(TileKind.HAZARD, -value, HAZARD_NAMES[-value]) for value in range(1, 7)]
    specials = [
        Tile(TileKind.MOUNTAIN, 0, "Mountain"),
        Tile(TileKind.MOUNTAIN, 0, "Mountain"),
        Tile(TileKind.DRAGON, 0, "Dragon"),
        Tile(TileKind.GOLD_MINE, 0, "Gold Mine"),
        Tile(TileKind.WIZARD, 0, "Wizard"),
    ]
    return (*resources, *hazards, *specials)


TILE_SET: tuple[Tile, ...] = _tile_set()
"""All 23 tiles in a fixed order; the supply keeps this order, and draws pick an index."""

RANK_ONE_CASTLES = {2: 4, 3: 3, 4: 2}
"""Rank-1 castles each player gets, by player count (standard game)."""
HIGHER_CASTLES = {2: 3, 3: 2, 4: 1}
"""Castles of rank 2, 3 and 4 each player gets, whatever the player count."""
ALL_RANK_ONE_CASTLES = 4
"""Down to the Last Castle gives every player all four rank-1 castles of a colour."""


def starting_castles(players: int, last_castle: bool) -> list[int]:
    """Castles a player starts the game with, as counts indexed by rank - 1."""
    rank_one = ALL_RANK_ONE_CASTLES if last_castle else RANK_ONE_CASTLES[players]
    return [rank_one, *(HIGHER_CASTLES[rank] for rank in range(2, HIGHEST_RANK + 1))]
