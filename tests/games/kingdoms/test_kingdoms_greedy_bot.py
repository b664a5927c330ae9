"""The sample greedy bot: its fast estimates agree with recomputing, and it beats RandomBot."""

from __future__ import annotations

import random

import pytest

from kingmaker.games.kingdoms import GAME, DrawTile, KingdomsState
from kingmaker.games.kingdoms.pieces import TILE_SET, Castle, TileKind
from kingmaker.sample_bots.kingdoms.greedy_bot import (
    Estimate,
    GreedyBot,
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


@pytest.mark.parametrize("seed", range(4))
def test_fast_gains_match_recomputing_the_touched_lines(seed: int) -> None:
    state = midgame(seed, moves=25 + seed * 3)
    view = state.observation(state.to_act()[0])
    board = board_of(view)
    outlook = outlook_of(view, board, unseen_tiles(view, board))
    estimate = Estimate(board, view.seat, 3, outlook)
    ordinary = [t for t in set(TILE_SET) if t.kind in (TileKind.RESOURCE, TileKind.HAZARD)]
    checked = 0
    for index in estimate.empty:
        for tile in ordinary:
            slow = placement_gain(board, index, tile, view.seat, 3, outlook)
            assert estimate.tile_gain(index, tile) == pytest.approx(slow)
        for rank in (1, 4):
            slow = placement_gain(board, index, Castle(view.seat, rank), view.seat, 3, outlook)
            assert estimate.castle_gain(index, rank) == pytest.approx(slow)
        checked += 1
    assert checked > 0


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


def test_the_quick_valuation_differs_only_in_what_a_draw_is_worth() -> None:
    """Without the special tiles a draw is worth the ordinary tiles' share; every other action
    keeps the full valuation's worth."""
    full, quick = GreedyBot(), GreedyBot(draw_specials=False)
    draws_differ = 0
    for seed in range(4):
        state = midgame(seed, moves=10 + seed * 5)
        seat = state.to_act()[0]
        view, legal = state.observation(seat), state.legal_actions(seat)
        for action, slow, fast in zip(
            legal, full.values(view, legal), quick.values(view, legal), strict=True
        ):
            if isinstance(action, DrawTile):
                draws_differ += slow != pytest.approx(fast)
            else:
                assert fast == pytest.approx(slow)
    assert draws_differ
