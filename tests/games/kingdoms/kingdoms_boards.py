"""Build Kingdoms positions from short text, for the Kingdoms tests.

A space is written as one token: ``.`` empty; ``+3`` / ``-6`` a resource / hazard of that
value; ``M`` mountain, ``D`` dragon, ``G`` gold mine, ``W`` wizard; a castle is a seat letter
and a printed rank, ``a1`` being seat 0's rank-1 castle, ``c4`` seat 2's rank-4 castle.
"""

from __future__ import annotations

from kingmaker.games.kingdoms.pieces import (
    COLUMNS,
    HAZARD_NAMES,
    RESOURCE_NAMES,
    ROWS,
    SPACES,
    Castle,
    Tile,
    TileKind,
)
from kingmaker.games.kingdoms.scoring import Space

SPECIAL = {
    "M": Tile(TileKind.MOUNTAIN, 0, "Mountain"),
    "D": Tile(TileKind.DRAGON, 0, "Dragon"),
    "G": Tile(TileKind.GOLD_MINE, 0, "Gold Mine"),
    "W": Tile(TileKind.WIZARD, 0, "Wizard"),
}


def space(token: str) -> Space:
    if token == ".":
        return None
    if token in SPECIAL:
        return SPECIAL[token]
    if token[0] == "+":
        return Tile(TileKind.RESOURCE, int(token), RESOURCE_NAMES[int(token)])
    if token[0] == "-":
        return Tile(TileKind.HAZARD, int(token), HAZARD_NAMES[int(token)])
    return Castle(owner="abcd".index(token[0]), rank=int(token[1]))


def board(text: str) -> list[Space]:
    """Five lines of six tokens; missing rows at the end are empty."""
    rows = [line.split() for line in text.strip().splitlines()]
    rows += [["."] * COLUMNS] * (ROWS - len(rows))
    assert all(len(row) == COLUMNS for row in rows), "each row needs six tokens"
    spaces = [space(token) for row in rows for token in row]
    assert len(spaces) == SPACES
    return spaces


def column_board(column: int, tokens: str) -> list[Space]:
    """An otherwise empty board with ``tokens`` (five, top to bottom) down one column."""
    spaces: list[Space] = [None] * SPACES
    for row, token in enumerate(tokens.split()):
        spaces[row * COLUMNS + column] = space(token)
    return spaces
