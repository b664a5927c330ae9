"""A Kingdoms state built from one seat's observation, for search bots (``Game.determinize``).

What a seat cannot see: the other players' starting tiles and the order of the face-down
supply. Both come from the same pool, the tiles neither on the board nor in this seat's hand,
so they are dealt from that pool at random. Everything else is on the table.
"""

from __future__ import annotations

import random
from collections import Counter

from kingmaker.games.api import Action, GameState, Observation
from kingmaker.games.kingdoms.options import Variants
from kingmaker.games.kingdoms.pieces import TILE_SET, Tile
from kingmaker.games.kingdoms.scoring import ALL_LINES
from kingmaker.games.kingdoms.state import KingdomsState
from kingmaker.games.rng import SeededRng


def determinize(observation: Observation, legal: tuple[Action, ...], seed: int) -> GameState:
    """A state ``observation`` could come from, the hidden tiles dealt with ``seed``."""
    del legal  # the observation alone fixes the legal actions here
    view = observation
    chooser = random.Random(seed)
    variants = Variants(view.down_to_the_last_castle, view.no_luck, view.score_as_you_go)
    players = len(view.players)
    state = KingdomsState(players, SeededRng(chooser.randrange(2**62)), variants)
    state.board = [cell.castle or cell.tile for row in view.board for cell in row.cells]
    state.gold = [player.gold for player in view.players]
    state.castles = [list(player.castles) for player in view.players]
    state.last_scoring = [player.last_scoring for player in view.players]
    state.epoch = view.epoch
    state.first_player = view.first_player
    state.turn = view.turn
    state.drawn_tile = view.drawn_tile
    state.scored_lines = set()
    if view.score_as_you_go:
        state.scored_lines = {line for line in ALL_LINES if all(state.board[i] is not None for i in line)}
    state.starting_tiles = [None] * players
    if view.no_luck:
        state.supply = list(view.face_up_supply)
        return state
    pool = Counter(TILE_SET)
    pool.subtract(space for space in state.board if isinstance(space, Tile))
    pool.subtract(tile for tile in (view.starting_tile, view.drawn_tile) if tile is not None)
    unseen = sorted(pool.elements(), key=TILE_SET.index)
    chooser.shuffle(unseen)
    for player in view.players:
        if player.seat == view.seat:
            state.starting_tiles[player.seat] = view.starting_tile
        elif player.holds_starting_tile and unseen:
            state.starting_tiles[player.seat] = unseen.pop()
    state.supply = unseen
    return state
