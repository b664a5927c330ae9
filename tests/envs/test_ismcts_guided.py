"""The guided ISMCTS (``sample_bots/ismcts_guide.py``) decides from the seat's information state
alone: two worlds that differ only in what the seat cannot see give the same move."""

from __future__ import annotations

import copy
import random
from types import SimpleNamespace

import pytest

from kingmaker.envs.openspiel import load_game, state_from_request
from kingmaker.games.registry import get_game
from kingmaker.sample_bots.ismcts_bot import guided_factory


def _a_decision(name: str, moves: int) -> tuple[object, object, int]:
    """A seat's observation and legal actions some moves into a 2-seat game, and the seat."""
    state = get_game(name).new(2, 5)
    chooser = random.Random(5)
    for _ in range(moves):
        state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    seat = state.to_act()[0]
    return state.observation(seat), state.legal_actions(seat), seat


def _whole(engine: object) -> dict[str, object]:
    """Everything an engine state holds; of a random generator, what a copy of it draws next."""
    return {
        name: tuple(copy.deepcopy(value).randrange(1 << 30) for _ in range(4))
        if hasattr(value, "randrange")
        else repr(value)
        for name, value in vars(engine).items()
    }


@pytest.mark.parametrize("name", ["kingdoms", "kingsville"])
def test_worlds_alike_to_the_seat_get_the_same_move(name: str) -> None:
    observation, legal, seat = _a_decision(name, 1)
    game = load_game(name, {"players": 2})
    request = SimpleNamespace(observation=observation, legal_actions=legal)
    worlds = [state_from_request(game, request, seed) for seed in (11, 12)]
    assert worlds[0].engine.observation(seat) == worlds[1].engine.observation(seat)
    # The worlds differ in what this seat cannot see (the other's tiles, the order of a deck).
    assert _whole(worlds[0].engine) != _whole(worlds[1].engine)
    moves = [guided_factory(game, seat, simulations=6).step(world) for world in worlds]
    assert moves[0] == moves[1]
    assert 0 <= moves[0] < len(legal)
