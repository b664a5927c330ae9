"""Scoring a Kingdoms board: lines, their mountain-separated parts, and the gold they pay.

A board is a sequence of 30 spaces, row by row from the top left; each space holds a ``Tile``,
a ``Castle`` or ``None`` (empty, worth nothing). For one part of a line (the spaces between the
line's ends and its mountains): add the resources (none, if the part holds the dragon), add the
hazards, double the sum if the part holds the gold mine; each player then gains (or pays) that
value times the total rank of their castles in the part, a castle next to the wizard counting one
rank higher. Gold never goes below zero: a player who owes more than they hold pays what they hold
(see the package docstring), which is why the order of the lines matters: rows from the top,
then columns from the left, and within a line its parts from the top or the left.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kingmaker.games.kingdoms.pieces import COLUMNS, ROWS, Castle, Tile, TileKind

Space = Tile | Castle | None
Board = Sequence[Space]
Line = tuple[int, ...]
"""The board indices of one row or column, in scoring order."""

ROW_LINES: tuple[Line, ...] = tuple(
    tuple(row * COLUMNS + column for column in range(COLUMNS)) for row in range(ROWS)
)
COLUMN_LINES: tuple[Line, ...] = tuple(
    tuple(row * COLUMNS + column for row in range(ROWS)) for column in range(COLUMNS)
)
ALL_LINES: tuple[Line, ...] = ROW_LINES + COLUMN_LINES
"""Every line in the rulebook's scoring order."""


def index_of(row: int, column: int) -> int:
    return row * COLUMNS + column


def lines_through(index: int) -> tuple[Line, Line]:
    """The row and the column that hold a space, in scoring order."""
    return ROW_LINES[index // COLUMNS], COLUMN_LINES[index % COLUMNS]


def _neighbours(index: int) -> tuple[int, ...]:
    row, column = divmod(index, COLUMNS)
    found = []
    if row > 0:
        found.append(index - COLUMNS)
    if row < ROWS - 1:
        found.append(index + COLUMNS)
    if column > 0:
        found.append(index - 1)
    if column < COLUMNS - 1:
        found.append(index + 1)
    return tuple(found)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(index) for index in range(ROWS * COLUMNS))
"""The orthogonally adjacent spaces of each space (up, down, left, right), computed once."""

# Enum members bound once: scoring looks at every tile of every line, and a module global is
# cheaper to read than an attribute of the enum class.
_RESOURCE = TileKind.RESOURCE
_HAZARD = TileKind.HAZARD
_MOUNTAIN = TileKind.MOUNTAIN
_DRAGON = TileKind.DRAGON
_GOLD_MINE = TileKind.GOLD_MINE
_WIZARD = TileKind.WIZARD


def neighbours(index: int) -> list[int]:
    """The orthogonally adjacent spaces."""
    return list(NEIGHBOURS[index])


def effective_rank(board: Board, index: int) -> int:
    """The rank a castle scores with: its own, plus one next to the wizard."""
    castle = board[index]
    assert isinstance(castle, Castle)
    boosted = any(_is_kind(board[near], _WIZARD) for near in NEIGHBOURS[index])
    return castle.rank + (1 if boosted else 0)


def parts(board: Board, line: Line) -> list[Line]:
    """The line cut at its mountains; parts with no space left out."""
    found: list[Line] = []
    current: list[int] = []
    for index in line:
        if _is_kind(board[index], _MOUNTAIN):
            if current:
                found.append(tuple(current))
            current = []
        else:
            current.append(index)
    if current:
        found.append(tuple(current))
    return found


def part_value(tiles: Iterable[Tile]) -> int:
    """The base value of one part: resources (cancelled by a dragon) plus hazards, doubled by a gold mine."""
    resources = hazards = 0
    dragon = gold_mine = False
    for tile in tiles:
        kind = tile.kind
        if kind is _RESOURCE:
            resources += tile.value
        elif kind is _HAZARD:
            hazards += tile.value
        elif kind is _DRAGON:
            dragon = True
        elif kind is _GOLD_MINE:
            gold_mine = True
    total = hazards if dragon else hazards + resources
    return total * 2 if gold_mine else total


def part_payouts(board: Board, part: Line, players: int) -> list[int]:
    """What each seat gains (negative: pays) from one part, before the zero floor."""
    return _part_payouts(board, part, players, beside_wizard(board))


def line_payouts(board: Board, line: Line, players: int) -> list[int]:
    """What each seat gains from a whole line (its parts added), before the zero floor."""
    total = [0] * players
    boosted = beside_wizard(board)
    for part in parts(board, line):
        for seat, gold in enumerate(_part_payouts(board, part, players, boosted)):
            total[seat] += gold
    return total


def pay_out(gold: list[int], board: Board, lines: Iterable[Line]) -> list[int]:
    """Score ``lines`` in order into ``gold`` (changed in place), never below zero.

    Returns each seat's actual change in gold."""
    before = list(gold)
    players = len(gold)
    boosted = beside_wizard(board)
    for line in lines:
        for part in parts(board, line):
            for seat, change in enumerate(_part_payouts(board, part, players, boosted)):
                gold[seat] = max(0, gold[seat] + change)
    return [after - start for after, start in zip(gold, before, strict=True)]


def beside_wizard(board: Board) -> frozenset[int]:
    """The spaces whose castle counts one rank higher: those orthogonally next to a wizard.

    Found once per scoring, not once per castle per line (adjacency is symmetric)."""
    return frozenset(
        near
        for index, space in enumerate(board)
        if isinstance(space, Tile) and space.kind is _WIZARD
        for near in NEIGHBOURS[index]
    )


def _part_payouts(board: Board, part: Line, players: int, boosted: frozenset[int]) -> list[int]:
    # One pass over the part: its tiles for the value, its castles (and their wizard bonus,
    # ``boosted`` from beside_wizard) for the ranks.
    tiles: list[Tile] = []
    ranks = [0] * players
    for index in part:
        space = board[index]
        if isinstance(space, Castle):
            ranks[space.owner] += space.rank + 1 if index in boosted else space.rank
        elif isinstance(space, Tile):
            tiles.append(space)
    value = part_value(tiles)
    return [value * rank for rank in ranks]


def _is_kind(space: Space, kind: TileKind) -> bool:
    return isinstance(space, Tile) and space.kind is kind
