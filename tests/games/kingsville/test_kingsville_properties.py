"""Kingsville invariants over random play (hypothesis): purses, displays, replays, hidden decks."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingmaker.games import conformance
from kingmaker.games.kingsville import GAME
from kingmaker.games.kingsville.actions import BuildWonder, TakeOrder
from kingmaker.games.kingsville.rng_tools import reshuffled
from kingmaker.games.kingsville.state import KingsvilleState

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SEEDS = st.integers(0, 2**31 - 1)
PLAYERS = st.integers(2, 4)


@SETTINGS
@given(players=PLAYERS, seed=SEEDS, policy_seed=SEEDS)
def test_gold_wood_and_supply_never_go_negative(players: int, seed: int, policy_seed: int) -> None:
    state = GAME.new(players, seed)
    assert isinstance(state, KingsvilleState)
    chooser = random.Random(policy_seed)
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply({seat: chooser.choice(state.legal_actions(seat))})
        for board in state.boards:
            assert board.gold >= 0
            assert board.wood >= 0
        assert min(state.supply.values()) >= 0


def random_turns(
    players: int, seed: int, policy_seed: int
) -> list[tuple[KingsvilleState, object, KingsvilleState]]:
    """Each whole turn of one random game: the state before, the turn action, the state after."""
    state = GAME.new(players, seed)
    assert isinstance(state, KingsvilleState)
    chooser = random.Random(policy_seed)
    turns = []
    while not state.is_over():
        before = state.clone()
        seat = state.to_act()[0]
        action = chooser.choice(state.legal_actions(seat))
        state.apply({seat: action})
        while state.pending is not None:  # the optional steps of the same turn
            state.apply({seat: chooser.choice(state.legal_actions(seat))})
        turns.append((before, action, state.clone()))
    return turns


@SETTINGS
@given(players=PLAYERS, seed=SEEDS, policy_seed=SEEDS)
def test_displays_refill_or_the_age_ends_exactly_as_written(
    players: int, seed: int, policy_seed: int
) -> None:
    full = players + 1
    ages_ended = 0
    for before, action, after in random_turns(players, seed, policy_seed):
        if before.final_round:
            assert after.final_round  # after Age III nothing is refilled and no age ends
            continue
        assert len(before.wonder_display) == len(before.order_display) == full
        # One card left a display iff the action took it; the age ends iff its deck was empty.
        short = (isinstance(action, BuildWonder) and not before.wonder_deck) or (
            isinstance(action, TakeOrder) and not before.order_deck
        )
        ended = after.age == before.age + 1 or (after.final_round and not before.final_round)
        assert ended == short
        ages_ended += ended
        if not ended:
            assert len(after.wonder_deck) == len(before.wonder_deck) - isinstance(action, BuildWonder)
            assert len(after.order_deck) == len(before.order_deck) - isinstance(action, TakeOrder)
    assert ages_ended == 3


@SETTINGS
@given(players=PLAYERS, seed=SEEDS, policy_seed=SEEDS)
def test_replays_from_seed_and_actions_end_the_same(players: int, seed: int, policy_seed: int) -> None:
    playout = conformance.random_playout(GAME, players, seed, policy_seed=policy_seed)
    again = conformance.replay(GAME, playout)
    assert again.result() == playout.final.result()
    assert [again.observation(s) for s in range(players)] == [
        playout.final.observation(s) for s in range(players)
    ]


@SETTINGS
@given(players=PLAYERS, seed=SEEDS, policy_seed=SEEDS)
def test_no_seat_sees_the_order_of_the_decks(players: int, seed: int, policy_seed: int) -> None:
    playout = conformance.random_playout(GAME, players, seed, policy_seed=policy_seed)
    conformance.check_no_leaks(GAME, playout, samples=6, seed=policy_seed)


def test_the_leak_hook_really_reorders_the_decks() -> None:
    state = GAME.new(4, 1)
    assert isinstance(state, KingsvilleState)
    other = reshuffled(state, 99)
    assert other.order_deck != state.order_deck
    assert sorted(c.name for c in other.order_deck) == sorted(c.name for c in state.order_deck)
    assert other.future_wonders[2] != state.future_wonders[2]
    assert [other.observation(s) for s in range(4)] == [state.observation(s) for s in range(4)]
