"""The engine's shortcuts agree with the plain rules they stand in for, over random play.

``apply`` vouches for most actions in constant time (``_surely_legal``) instead of searching the
legal list, and ``clone`` copies containers instead of deep-copying. If either drifted from the
rules (a new rule added to ``_compute_legal`` but not to the shortcut, a new mutable field not
copied), these fail rather than a replay months later.
"""

from __future__ import annotations

import copy
import dataclasses
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kingmaker.games.kingdoms import GAME, ChooseTile, DrawTile, KingdomsState, Pass
from kingmaker.games.kingdoms.state import (
    _CASTLE_ACTIONS,
    _CHOOSE_ACTIONS,
    _DRAWN_ACTIONS,
    _STARTING_ACTIONS,
)

SETTINGS = settings(max_examples=25, deadline=None)
EVERY_ACTION = (
    *(action for by_rank in _CASTLE_ACTIONS.values() for action in by_rank),
    *_DRAWN_ACTIONS,
    *_STARTING_ACTIONS,
    *_CHOOSE_ACTIONS.values(),
    DrawTile(),
    Pass(),
)
"""Every action Kingdoms can ever list, as the prebuilt values legal_actions hands out."""

games = st.fixed_dictionaries(
    {
        "players": st.integers(2, 4),
        "seed": st.integers(0, 2**31 - 1),
        "options": st.fixed_dictionaries(
            {
                "down_to_the_last_castle": st.booleans(),
                "no_luck": st.booleans(),
                "score_as_you_go": st.booleans(),
            }
        ),
    }
)


def new_state(players: int, seed: int, options: dict[str, bool]) -> KingdomsState:
    state = GAME.new(players, seed, options)
    assert isinstance(state, KingdomsState)
    return state


@SETTINGS
@given(game=games)
def test_the_constant_time_legality_check_agrees_with_the_legal_list(game: dict) -> None:
    state = new_state(**game)
    chooser = random.Random(game["seed"])
    while not state.is_over():
        seat = state.turn
        assert seat is not None
        legal = state.legal_actions(seat)
        for action in EVERY_ACTION:
            # an equal but distinct value too, as the referee decodes it from the wire
            for candidate in (action, dataclasses.replace(action)):
                if state._surely_legal(seat, candidate):
                    assert candidate in legal, f"{candidate!r} passed the shortcut but is not legal"
        for action in legal:
            if not isinstance(action, ChooseTile | Pass):  # those two always take the full check
                assert state._surely_legal(seat, action), f"the shortcut misses legal {action!r}"
        state.apply({seat: chooser.choice(legal)})


@SETTINGS
@given(game=games, steps=st.integers(0, 120))
def test_clone_equals_a_deep_copy_and_shares_nothing_mutable(game: dict, steps: int) -> None:
    state = new_state(**game)
    chooser = random.Random(game["seed"])
    for _ in range(steps):
        if state.is_over():
            return
        seat = state.to_act()[0]
        state.apply({seat: chooser.choice(state.legal_actions(seat))})
    twin, deep = state.clone(), copy.deepcopy(state)
    assert vars(twin).keys() == vars(state).keys()
    for name, value in vars(state).items():
        if isinstance(value, list | set | dict):
            assert getattr(twin, name) is not value, f"clone shares the mutable {name}"
        if isinstance(value, list) and value and isinstance(value[0], list):
            assert all(a is not b for a, b in zip(getattr(twin, name), value, strict=True))
    # Both copies play on identically (same RNG draws), and the original does not move.
    before = [state.observation(seat) for seat in range(state.players)]
    while not twin.is_over():
        seat = twin.to_act()[0]
        action = chooser.choice(twin.legal_actions(seat))
        twin.apply({seat: action})
        deep.apply({seat: action})
        assert twin.observation(seat) == deep.observation(seat)
    assert deep.is_over() and twin.result() == deep.result()
    assert [state.observation(seat) for seat in range(state.players)] == before


@SETTINGS
@given(game=games)
def test_a_reused_player_view_shows_the_facts_of_now(game: dict) -> None:
    # ``observation`` hands out the same PlayerView object for the same facts (the referee's
    # codec then finds it by identity): never one of facts that have changed since.
    state = new_state(**game)
    chooser = random.Random(game["seed"])
    earlier: dict[int, object] = {}
    reused = 0
    while not state.is_over():
        seat = state.to_act()[0]
        for view in state.observation(seat).players:
            other = view.seat
            assert view.gold == state.gold[other]
            assert view.castles == tuple(state.castles[other])
            assert view.holds_starting_tile == (state.starting_tiles[other] is not None)
            assert view.last_scoring == state.last_scoring[other]
            reused += view is earlier.get(other)
            earlier[other] = view
        state.apply({seat: chooser.choice(state.legal_actions(seat))})
    assert reused > 0  # most turns leave most players' facts as they were
