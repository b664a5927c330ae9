"""The Kingdoms game state: turns, epochs, the supply and the hidden starting tiles.

The rules themselves are documented in the package docstring (``kingdoms/__init__.py``).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping
from operator import itemgetter
from typing import ClassVar, Self

from kingmaker.games.api import Action, GameSpec, GameState, Result, RulesError, Seat, ranks_from_keys
from kingmaker.games.kingdoms.actions import (
    ChooseTile,
    DrawTile,
    Pass,
    PlaceCastle,
    PlaceDrawnTile,
    PlaceStartingTile,
)
from kingmaker.games.kingdoms.observation import Cell, Observation, PlayerView, Row
from kingmaker.games.kingdoms.options import Variants
from kingmaker.games.kingdoms.pieces import (
    COLUMNS,
    HIGHEST_RANK,
    ROWS,
    SPACES,
    STANDARD_EPOCHS,
    STARTING_GOLD,
    TILE_SET,
    Castle,
    Tile,
    starting_castles,
)
from kingmaker.games.kingdoms.scoring import ALL_LINES, ROW_LINES, Line, Space, lines_through, pay_out
from kingmaker.games.kingdoms.spec import MAX_PLAYERS, SPEC
from kingmaker.games.rng import Rng

TILE_ORDER: dict[Tile, int] = {tile: TILE_SET.index(tile) for tile in TILE_SET}
"""A canonical order for tiles, so face-up tiles and tile choices list the same way every time."""

# Every action value built once: legal_actions only picks from these.
_CASTLE_ACTIONS = {
    rank: tuple(PlaceCastle(rank, i // COLUMNS, i % COLUMNS) for i in range(SPACES))
    for rank in range(1, HIGHEST_RANK + 1)
}
_DRAWN_ACTIONS = tuple(PlaceDrawnTile(i // COLUMNS, i % COLUMNS) for i in range(SPACES))
_STARTING_ACTIONS = tuple(PlaceStartingTile(i // COLUMNS, i % COLUMNS) for i in range(SPACES))
_CHOOSE_ACTIONS = {tile: ChooseTile(tile) for tile in TILE_SET}
_CASTLE_TABLES = tuple(_CASTLE_ACTIONS[rank] for rank in range(1, HIGHEST_RANK + 1))
"""Per rank (index rank - 1), that rank's ``PlaceCastle`` on each board index."""
_DRAW_TILE = DrawTile()
_PASS_ONLY = (Pass(),)

_castle = functools.cache(Castle)
"""Castles are frozen values: one per (owner, rank) is shared instead of built per placement."""


class KingdomsState(GameState):
    """One game of Kingdoms. Build it with ``GAME.new``; tests may build it directly with a
    ``ScriptedRng``: the constructor draws each seat's starting tile (seat order, an index into
    the supply, which keeps ``TILE_SET`` order) and then, for epoch 1, the first player."""

    spec: ClassVar[GameSpec] = SPEC

    def __init__(self, players: int, rng: Rng, variants: Variants = Variants()) -> None:
        self._players = players
        self.rng = rng
        self.variants = variants
        self.board: list[Space] = [None] * SPACES
        self.gold = [STARTING_GOLD] * players
        self.castles = [starting_castles(players, variants.last_castle) for _ in range(players)]
        """Castles in hand per seat, counts indexed by rank - 1."""
        self.supply: list[Tile] = []
        self.starting_tiles: list[Tile | None] = [None] * players
        self.drawn_tile: Tile | None = None
        self.epoch = 1
        self.first_player = 0
        self.turn: Seat | None = 0
        self.last_scoring = [0] * players
        self.scored_lines: set[Line] = set()
        """Score as You Go: the lines already scored this epoch."""
        self._begin_epoch(first_player=None)

    # --- the interface -------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self._players

    def to_act(self) -> tuple[Seat, ...]:
        return () if self.turn is None else (self.turn,)

    def legal_actions(self, seat: Seat) -> tuple[Action, ...]:
        if seat != self.turn:
            return ()
        return self._compute_legal(seat)

    def apply(self, actions: Mapping[Seat, Action]) -> None:
        self._check_joint_action_fast(actions)
        seat = self.turn
        assert seat is not None
        action = actions[seat]
        if isinstance(action, DrawTile):
            self.drawn_tile = self.supply.pop(self.rng.randrange(len(self.supply)))
            return  # the same seat now places it
        if isinstance(action, ChooseTile):
            self.supply.remove(action.tile)
            self.drawn_tile = action.tile
            return
        if isinstance(action, PlaceCastle):
            self.castles[seat][action.rank - 1] -= 1
            self._place(action.row, action.column, _castle(seat, action.rank))
        elif isinstance(action, PlaceDrawnTile):
            assert self.drawn_tile is not None
            self._place(action.row, action.column, self.drawn_tile)
            self.drawn_tile = None
        elif isinstance(action, PlaceStartingTile):
            self._place(action.row, action.column, self.starting_tiles[seat])
            self.starting_tiles[seat] = None
        elif not isinstance(action, Pass):
            raise RulesError(f"not a Kingdoms action: {action!r}")
        self._after_turn(seat)

    def observation(self, seat: Seat) -> Observation:
        spaces = self.board
        board = tuple(_row(pieces(spaces)) for pieces in _ROW_PIECES)
        players = tuple(
            _player_view(
                other,
                self.gold[other],
                tuple(self.castles[other]),
                self.starting_tiles[other] is not None,
                self.last_scoring[other],
            )
            for other in range(self.players)
        )
        face_up = tuple(sorted(self.supply, key=TILE_ORDER.__getitem__)) if self.variants.no_luck else ()
        return Observation(
            seat=seat,
            epoch=self.epoch,
            last_epoch=0 if self.variants.last_castle else STANDARD_EPOCHS,
            down_to_the_last_castle=self.variants.last_castle,
            no_luck=self.variants.no_luck,
            score_as_you_go=self.variants.score_as_you_go,
            first_player=self.first_player,
            turn=self.turn,
            board=board,
            players=players,
            supply_size=len(self.supply),
            face_up_supply=face_up,
            starting_tile=self.starting_tiles[seat],
            drawn_tile=self.drawn_tile if self.turn == seat else None,
        )

    def is_over(self) -> bool:
        return self.turn is None

    def clone(self) -> Self:
        """A faster copy than ``deepcopy``: pieces and variants are frozen, so only the
        containers are copied (search bots clone once per simulated move)."""
        other = copy.copy(self)
        other.rng = copy.deepcopy(self.rng)
        other.board = list(self.board)
        other.gold = list(self.gold)
        other.castles = [list(castles) for castles in self.castles]
        other.supply = list(self.supply)
        other.starting_tiles = list(self.starting_tiles)
        other.last_scoring = list(self.last_scoring)
        other.scored_lines = set(self.scored_lines)
        return other

    def result(self) -> Result:
        if not self.is_over():
            raise RulesError("the game is not over")
        return Result(tuple(self.gold), ranks_from_keys([(gold,) for gold in self.gold]))

    # --- turns ---------------------------------------------------------------------------

    def can_act(self, seat: Seat) -> bool:
        """Whether ``seat`` has anything but a pass: an empty space and something to put there."""
        if None not in self.board:
            return False
        has_castle = any(self.castles[seat])
        return has_castle or self.starting_tiles[seat] is not None or bool(self.supply)

    def _check_joint_action_fast(self, actions: Mapping[Seat, Action]) -> None:
        """``check_joint_action`` without building the legal list when the action is plainly legal.

        The fast test only ever says "legal" for an action equal to a prebuilt legal action;
        anything else (every illegal action, ``ChooseTile``, ``Pass``) takes the generic check,
        so errors and edge cases are exactly those of ``GameState.check_joint_action``."""
        seat = self.turn
        if seat is not None and len(actions) == 1:
            action = actions.get(seat, _MISSING)
            if action is not _MISSING and self._surely_legal(seat, action):
                return
        self.check_joint_action(actions)

    def _surely_legal(self, seat: Seat, action: object) -> bool:
        """True only if ``action in self._compute_legal(seat)``, checked in constant time;
        False means "ask the full check". ``seat`` must be the seat whose turn it is."""
        kind = type(action)
        if kind is DrawTile:
            return (
                self.drawn_tile is None
                and bool(self.supply)
                and not self.variants.no_luck
                and None in self.board
            )
        if kind is PlaceCastle:
            assert isinstance(action, PlaceCastle)
            index = _board_index(action.row, action.column)
            rank = action.rank
            if index is None or type(rank) is not int or not 1 <= rank <= HIGHEST_RANK:
                return False
            legal = self.drawn_tile is None and bool(self.castles[seat][rank - 1])
            canonical: Action = _CASTLE_ACTIONS[rank][index]
        elif kind is PlaceDrawnTile:
            assert isinstance(action, PlaceDrawnTile)
            index = _board_index(action.row, action.column)
            if index is None:
                return False
            legal = self.drawn_tile is not None
            canonical = _DRAWN_ACTIONS[index]
        elif kind is PlaceStartingTile:
            assert isinstance(action, PlaceStartingTile)
            index = _board_index(action.row, action.column)
            if index is None:
                return False
            legal = self.drawn_tile is None and self.starting_tiles[seat] is not None
            canonical = _STARTING_ACTIONS[index]
        else:
            return False
        board = self.board
        return (
            legal
            and index < len(board)
            and board[index] is None
            and (canonical is action or bool(canonical == action))
        )

    def _compute_legal(self, seat: Seat) -> tuple[Action, ...]:
        empty = [i for i, space in enumerate(self.board) if space is None]
        # Every placement list is a per-space table read at the empty spaces: one itemgetter
        # picks them all in C (this is the hottest code of a random game).
        pick = _picker(empty)
        if self.drawn_tile is not None:
            return pick(_DRAWN_ACTIONS)
        legal: tuple[Action, ...] = ()
        for count, table in zip(self.castles[seat], _CASTLE_TABLES, strict=True):
            if count:
                legal += pick(table)
        if self.supply and empty:
            if self.variants.no_luck:
                legal += tuple(
                    _CHOOSE_ACTIONS[tile] for tile in sorted(set(self.supply), key=TILE_ORDER.__getitem__)
                )
            else:
                legal += (_DRAW_TILE,)
        if self.starting_tiles[seat] is not None:
            legal += pick(_STARTING_ACTIONS)
        return legal or _PASS_ONLY

    def _place(self, row: int, column: int, piece: Space) -> None:
        index = row * COLUMNS + column
        self.board[index] = piece
        if not self.variants.score_as_you_go:
            return
        # Score as You Go: a line is scored the moment its last space is filled, row first.
        filled = [
            line
            for line in lines_through(index)
            if line not in self.scored_lines and all(self.board[i] is not None for i in line)
        ]
        if filled:
            self.scored_lines.update(filled)
            self.last_scoring = pay_out(self.gold, self.board, filled)

    def _after_turn(self, seat: Seat) -> None:
        next_seat = (seat + 1) % self.players
        # Someone can act while a space is empty and the supply has a tile (anyone may draw);
        # only when the supply is empty does each seat's hand need a look.
        if None in self.board and (bool(self.supply) or any(self.can_act(s) for s in range(self.players))):
            self.turn = next_seat
        else:
            self._end_epoch(next_seat)

    # --- epochs --------------------------------------------------------------------------

    def _begin_epoch(self, first_player: Seat | None) -> None:
        self.board = [None] * SPACES
        self.scored_lines = set()
        self.supply = list(TILE_SET)
        self.starting_tiles = [None] * self.players
        if not self.variants.no_luck:
            for seat in range(self.players):
                self.starting_tiles[seat] = self.supply.pop(self.rng.randrange(len(self.supply)))
        if first_player is None:
            first_player = self.rng.randrange(self.players)
        self.first_player = first_player
        self.turn = first_player

    def _end_epoch(self, next_seat: Seat) -> None:
        """Score, clear the board, and start the next epoch or end the game.

        ``next_seat`` is whoever would have played next: ties for richest start from there."""
        unscored = [line for line in ALL_LINES if line not in self.scored_lines]
        if unscored:
            self.last_scoring = pay_out(self.gold, self.board, unscored)
        if self._game_ends():
            self.turn = None  # the final board stays in view, its castles where they stand
            self.drawn_tile = None
            return
        for space in self.board:
            if isinstance(space, Castle) and space.rank == 1 and not self.variants.last_castle:
                self.castles[space.owner][0] += 1
        self.epoch += 1
        self._begin_epoch(self.richest(next_seat))

    def _game_ends(self) -> bool:
        if self.variants.last_castle:
            return any(not any(castles) for castles in self.castles)
        return self.epoch >= STANDARD_EPOCHS

    def richest(self, from_seat: Seat) -> Seat:
        """The seat with the most gold; among equals, the first in turn order from ``from_seat``."""
        order = [(from_seat + step) % self.players for step in range(self.players)]
        most = max(self.gold)
        return next(seat for seat in order if self.gold[seat] == most)


_MISSING = object()


def _picker(indices: list[int]) -> Callable[[tuple[Action, ...]], tuple[Action, ...]]:
    """A function taking a per-space table to the tuple of its entries at ``indices``."""
    if len(indices) > 1:
        return itemgetter(*indices)
    if indices:
        index = indices[0]
        return lambda table: (table[index],)
    return lambda table: ()


def _board_index(row: object, column: object) -> int | None:
    """The board index of a (row, column) given as plain ints on the board, else None."""
    if type(row) is int and type(column) is int and 0 <= row < ROWS and 0 <= column < COLUMNS:
        return row * COLUMNS + column
    return None


_ROW_PIECES = tuple(itemgetter(*line) for line in ROW_LINES)
"""Per row of the board, what picks that row's spaces out of ``board`` (as a tuple)."""
_ROWS: dict[tuple[int, ...], tuple[tuple[Space, ...], Row]] = {}
ROWS_KEPT = 4096


def _row(pieces: tuple[Space, ...]) -> Row:
    """The row of these pieces: the same object for the same pieces, so that a referee sending
    one observation after another does not build, nor its codec hash, the rows that did not
    change. Found by the pieces' identities; kept with the pieces, so those ids stay theirs."""
    key = tuple(map(id, pieces))
    kept = _ROWS.get(key)
    if kept is not None:
        return kept[1]
    row = Row(tuple(_cell(piece) for piece in pieces))
    if len(_ROWS) >= ROWS_KEPT:
        _ROWS.clear()
    _ROWS[key] = (pieces, row)
    return row


_VIEWS: dict[tuple[int, int, tuple[int, ...], bool, int], PlayerView] = {}
VIEWS_KEPT = 4096


def _player_view(
    seat: Seat, gold: int, castles: tuple[int, ...], holds_starting_tile: bool, last_scoring: int
) -> PlayerView:
    """A player's view: the same object for the same facts (most turns change one player's at
    most), so that a referee's codec finds it by identity instead of hashing a new one, and a
    frozen dataclass is not built again."""
    key = (seat, gold, castles, holds_starting_tile, last_scoring)
    view = _VIEWS.get(key)
    if view is None:
        view = PlayerView(seat, gold, castles, holds_starting_tile, last_scoring)
        if len(_VIEWS) >= VIEWS_KEPT:
            _VIEWS.clear()
        _VIEWS[key] = view
    return view


def _cell(space: Space) -> Cell:
    # The pieces this module hands out (the tile set, the shared castles, empty) have their
    # cell built once, found by identity: a frozen dataclass is slow to build and to hash.
    cell = _CELLS.get(id(space))
    if cell is not None and (cell.tile is space or cell.castle is space):
        return cell
    if isinstance(space, Castle):
        return Cell(tile=None, castle=space)
    return Cell(tile=space, castle=None)


_CELLS: dict[int, Cell] = {
    id(None): Cell(tile=None, castle=None),
    **{id(tile): Cell(tile=tile, castle=None) for tile in TILE_SET},
    **{
        id(castle): Cell(tile=None, castle=castle)
        for castle in (
            _castle(owner, rank) for owner in range(MAX_PLAYERS) for rank in range(1, HIGHEST_RANK + 1)
        )
    },
}
