"""The sample greedy bot: its fast estimates agree with recomputing, and it beats RandomBot."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kingmaker.games.kingdoms import GAME, KingdomsState
from kingmaker.games.kingdoms.pieces import TILE_SET, Castle, Tile, TileKind
from kingmaker.games.kingdoms.scoring import NEIGHBOURS, Space
from kingmaker.sample_bots.kingdoms.greedy_bot import (
    Estimate,
    GreedyBot,
    Outlook,
    board_of,
    outlook_of,
    placement_gain,
    unseen_tiles,
)
from kingmaker.sample_bots.random_bot import RandomBot
from kingmaker.sdk import play_local


def midgame(seed: int, moves: int) -> KingdomsState:
    state = GAME.new(3, seed)
    assert isinstance(state, KingdomsState)
    chooser = random.Random(seed)
    for _ in range(moves):
        seat = state.to_act()[0]
        state.apply({seat: chooser.choice(state.legal_actions(seat))})
    return state


def assert_fast_gains_match(board: list[Space], seat: int, outlook: Outlook) -> None:
    """Every tile (special ones too) and castle on every empty space, and each tile's best space,
    as the fast estimate has them and as recomputing the touched lines has them."""
    estimate = Estimate(board, seat, 3, outlook)
    assert estimate.empty
    for tile in set(TILE_SET):
        slow = max(placement_gain(board, i, tile, seat, 3, outlook) for i in estimate.empty)
        assert estimate.best_placement(tile) == pytest.approx(slow)
    for index in estimate.empty:
        for tile in set(TILE_SET):
            slow = placement_gain(board, index, tile, seat, 3, outlook)
            assert estimate.tile_gain(index, tile) == pytest.approx(slow)
        for rank in (1, 4):
            slow = placement_gain(board, index, Castle(seat, rank), seat, 3, outlook)
            assert estimate.castle_gain(index, rank) == pytest.approx(slow)


@pytest.mark.parametrize("seed", range(12))
def test_fast_gains_match_recomputing_the_touched_lines(seed: int) -> None:
    state = midgame(seed, moves=10 + seed * 3)
    view = state.observation(state.to_act()[0])
    board = board_of(view)
    assert_fast_gains_match(board, view.seat, outlook_of(view, board, unseen_tiles(view, board)))


@pytest.mark.parametrize("seed", range(12))
def test_fast_gains_match_with_every_special_tile_among_the_castles(seed: int) -> None:
    """Random play seldom puts the dragon or the gold mine in a part with castles: here a
    mountain, the dragon, the gold mine and the wizard go on empty spaces next to castles."""
    state = midgame(seed, moves=24)
    view = state.observation(state.to_act()[0])
    board = board_of(view)
    outlook = outlook_of(view, board, unseen_tiles(view, board))
    chooser = random.Random(seed)
    near_castles = [
        i
        for i, space in enumerate(board)
        if space is None and any(isinstance(board[n], Castle) for n in NEIGHBOURS[i])
    ]
    specials = [tile for tile in TILE_SET if tile.kind not in (TileKind.RESOURCE, TileKind.HAZARD)]
    placed = [tile for tile in specials if tile not in board][: len(near_castles) - 2]
    for tile, index in zip(placed, chooser.sample(near_castles, len(placed)), strict=True):
        board[index] = tile
    assert {TileKind.DRAGON, TileKind.GOLD_MINE} <= {t.kind for t in board if isinstance(t, Tile)}
    assert_fast_gains_match(board, view.seat, outlook)


@pytest.mark.parametrize("options", [{}, {"no_luck": True, "score_as_you_go": True}])
def test_greedy_beats_random_clearly(options: dict[str, bool]) -> None:
    games = 10
    wins = 0.0
    for seed in range(games):
        greedy_seat = seed % 2
        bots = [RandomBot(seed), RandomBot(seed)]
        bots[greedy_seat] = GreedyBot()
        ranks = play_local("kingdoms", bots, seed=seed, options=options).result.ranks
        if ranks[greedy_seat] == 1:
            wins += 0.5 if ranks[1 - greedy_seat] == 1 else 1.0
    assert wins >= 0.8 * games


@pytest.mark.parametrize("seed", range(8))
def test_the_unseen_tiles_are_the_set_less_what_the_seat_has_seen(seed: int) -> None:
    """Counted by name for speed: the same counts, in the supply's order, as taking the board and
    the seat's own tiles away from the whole set (and in No Luck, the face-up supply itself)."""
    for options in ({}, {"no_luck": True}):
        state = GAME.new(2 + seed % 3, seed, options)
        chooser = random.Random(seed)
        for _ in range(4 + 3 * seed):
            seat = state.to_act()[0]
            state.apply({seat: chooser.choice(state.legal_actions(seat))})
        view = state.observation(state.to_act()[0])
        board = board_of(view)
        unseen = unseen_tiles(view, board)
        if view.no_luck:
            expected = Counter(view.face_up_supply)
        else:
            expected = Counter(TILE_SET)
            expected.subtract(space for space in board if isinstance(space, Tile))
            expected.subtract(tile for tile in (view.starting_tile, view.drawn_tile) if tile is not None)
            expected = +expected
        assert unseen == list(expected.items())
