"""The Kingdoms game state: turns, epochs, the supply and the hidden starting tiles.

The rules themselves are documented in the package docstring (``kingdoms/__init__.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

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
from kingmaker.games.kingdoms.scoring import ALL_LINES, Line, Space, lines_through, pay_out
from kingmaker.games.kingdoms.spec import SPEC
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
        self.check_joint_action(actions)
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
            self._place(action.row, action.column, Castle(seat, action.rank))
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
        board = tuple(
            Row(tuple(_cell(self.board[row * COLUMNS + column]) for column in range(COLUMNS)))
            for row in range(ROWS)
        )
        players = tuple(
            PlayerView(
                seat=other,
                gold=self.gold[other],
                castles=tuple(self.castles[other]),
                holds_starting_tile=self.starting_tiles[other] is not None,
                last_scoring=self.last_scoring[other],
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

    def _compute_legal(self, seat: Seat) -> tuple[Action, ...]:
        empty = [i for i, space in enumerate(self.board) if space is None]
        if self.drawn_tile is not None:
            return tuple(_DRAWN_ACTIONS[i] for i in empty)
        legal: list[Action] = []
        for rank in range(1, HIGHEST_RANK + 1):
            if self.castles[seat][rank - 1]:
                legal.extend(_CASTLE_ACTIONS[rank][i] for i in empty)
        if self.supply and empty:
            if self.variants.no_luck:
                legal.extend(
                    _CHOOSE_ACTIONS[tile] for tile in sorted(set(self.supply), key=TILE_ORDER.__getitem__)
                )
            else:
                legal.append(DrawTile())
        if self.starting_tiles[seat] is not None:
            legal.extend(_STARTING_ACTIONS[i] for i in empty)
        return tuple(legal) if legal else (Pass(),)

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
        if None not in self.board or not any(self.can_act(s) for s in range(self.players)):
            self._end_epoch(next_seat)
        else:
            self.turn = next_seat

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


def _cell(space: Space) -> Cell:
    if isinstance(space, Castle):
        return Cell(tile=None, castle=space)
    return Cell(tile=space, castle=None)
