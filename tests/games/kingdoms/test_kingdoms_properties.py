"""Invariants of Kingdoms over random play (hypothesis picks seeds, player counts and variants)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kingmaker.games.kingdoms import (
    GAME,
    KingdomsState,
    PlaceCastle,
    PlaceDrawnTile,
    PlaceStartingTile,
)
from kingmaker.games.kingdoms.pieces import TILE_SET, Castle, Tile, starting_castles

PLACEMENTS = (PlaceCastle, PlaceDrawnTile, PlaceStartingTile)
SETTINGS = settings(max_examples=20, deadline=None)


def random_game(players: int, seed: int, options: dict[str, bool]) -> KingdomsState:
    state = GAME.new(players, seed, options)
    assert isinstance(state, KingdomsState)
    return state


def step(state: KingdomsState, chooser: random.Random) -> object:
    seat = state.to_act()[0]
    action = chooser.choice(state.legal_actions(seat))
    state.apply({seat: action})
    return action


@SETTINGS
@given(players=st.integers(2, 4), seed=st.integers(0, 2**31 - 1), no_luck=st.booleans())
def test_every_epoch_of_the_standard_game_fills_all_30_spaces(players: int, seed: int, no_luck: bool) -> None:
    state = random_game(players, seed, {"no_luck": no_luck})
    chooser = random.Random(seed)
    placements_per_epoch = [0, 0, 0]
    while not state.is_over():
        epoch = state.epoch
        if isinstance(step(state, chooser), PLACEMENTS):
            placements_per_epoch[epoch - 1] += 1
    assert placements_per_epoch == [30, 30, 30]
    assert state.epoch == 3


@SETTINGS
@given(
    players=st.integers(2, 4),
    seed=st.integers(0, 2**31 - 1),
    last_castle=st.booleans(),
    as_you_go=st.booleans(),
)
def test_castles_and_tiles_are_conserved_and_gold_never_goes_negative(
    players: int, seed: int, last_castle: bool, as_you_go: bool
) -> None:
    state = random_game(players, seed, {"down_to_the_last_castle": last_castle, "score_as_you_go": as_you_go})
    chooser = random.Random(seed)
    initial = starting_castles(players, last_castle)
    spent = [[0] * 4 for _ in range(players)]
    while not state.is_over():
        before_epoch = state.epoch
        seat = state.to_act()[0]
        placed = list(state.board)
        action = step(state, chooser)
        if isinstance(action, PlaceCastle):
            placed.append(Castle(seat, action.rank))
        if state.epoch != before_epoch:  # an epoch ended: its placed castles were spent (or came back)
            for space in placed:
                if isinstance(space, Castle) and (last_castle or space.rank > 1):
                    spent[space.owner][space.rank - 1] += 1
        assert min(state.gold) >= 0
        on_board = [[0] * 4 for _ in range(players)]
        for space in state.board:
            if isinstance(space, Castle):
                on_board[space.owner][space.rank - 1] += 1
        for seat in range(players):
            totals = [state.castles[seat][r] + on_board[seat][r] + spent[seat][r] for r in range(4)]
            assert totals == initial
        # The epoch-end board was replaced, so count tiles only while an epoch is in play.
        held = [t for t in [*state.starting_tiles, state.drawn_tile] if t is not None]
        tiles = [s for s in state.board if isinstance(s, Tile)] + state.supply + held
        if not state.is_over():
            assert sorted(map(repr, tiles)) == sorted(map(repr, TILE_SET))
