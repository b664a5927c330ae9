"""What one seat sees of a Kingdoms game: all public facts plus its own starting tile and the tile
it has just drawn. Built from scratch for each seat by ``KingdomsState.observation``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from kingmaker.games.api import GameState
from kingmaker.games.kingdoms.pieces import Castle, Tile


@dataclass(frozen=True)
class Cell:
    """One space of the board: a tile, a castle, or neither (empty)."""

    tile: Tile | None
    castle: Castle | None


@dataclass(frozen=True)
class Row:
    """One row of the board, its six spaces from left to right."""

    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class PlayerView:
    """The public facts about one player."""

    seat: int
    gold: int
    castles: tuple[int, ...]
    """Castles still in hand by printed rank: ``castles[0]`` is the number of rank-1 castles."""
    holds_starting_tile: bool
    """Whether the player still holds an unplayed starting tile (its face is hidden)."""
    last_scoring: int
    """Gold gained (negative: paid) at the most recent scoring: the end of the last epoch, or in
    Score as You Go the last line or lines scored."""


@dataclass(frozen=True)
class Observation:
    """One seat's view of the game."""

    seat: int
    """The seat this view is for."""
    epoch: int
    """The current epoch, from 1."""
    last_epoch: int
    """The epoch after which the game ends: 3, or 0 in Down to the Last Castle (not known ahead)."""
    down_to_the_last_castle: bool
    no_luck: bool
    score_as_you_go: bool
    first_player: int
    """The seat that took the first turn of this epoch."""
    turn: int | None
    """The seat whose turn it is; None once the game is over."""
    board: tuple[Row, ...]
    """Five rows from the top."""
    players: tuple[PlayerView, ...]
    """Every player, by seat."""
    supply_size: int
    """Tiles left in the supply."""
    face_up_supply: tuple[Tile, ...]
    """No Luck only: the tiles in the supply, which lie face up; empty otherwise."""
    starting_tile: Tile | None
    """This seat's own starting tile while it holds one."""
    drawn_tile: Tile | None
    """The tile this seat has drawn (or chosen) and must now place; None otherwise."""


def spectator_view(state: GameState) -> Observation:
    """What a spectator sees: the public board, players and supply size, and no seat's tiles (a
    starting tile is face down; a drawn tile is its drawer's until placed)."""
    view: Observation = state.observation(0)
    return dataclasses.replace(view, seat=-1, starting_tile=None, drawn_tile=None)
