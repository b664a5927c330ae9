"""King's Road and Kingsburg one seat at a time (``envs/turn_based.py``) for OpenSpiel's ISMCTS:
a seat's information state never holds another seat's held-back choice, the guided ISMCTS decides
from what its seat sees alone, and a match of each finishes legally with it."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pyspiel
import pytest

from kingmaker.envs.openspiel import load_game, state_from_request
from kingmaker.envs.turn_based import TurnBasedState
from kingmaker.games.registry import get_game
from kingmaker.sample_bots import ismcts_bot
from kingmaker.sample_bots.random_bot import RandomBot
from kingmaker.sdk.local import play_local

SIMULTANEOUS = ["kings_road", "kingsburg"]


def _simultaneous_request(name: str) -> tuple[Any, int]:
    """A request (observation, legal actions, seat) at a 2-seat node where both seats decide."""
    state = get_game(name).new(2, 7)
    chooser = random.Random(7)
    while len(state.to_act()) < 2 or min(len(state.legal_actions(seat)) for seat in (0, 1)) < 2:
        state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    seat = 1  # the second seat: in seat order another would have chosen before it
    return SimpleNamespace(observation=state.observation(seat), legal_actions=state.legal_actions(seat)), seat


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_a_held_back_choice_is_in_no_other_seats_information_state(name: str) -> None:
    request, seat = _simultaneous_request(name)
    game = load_game(name, {"players": 2})
    converted = pyspiel.convert_to_turn_based(game)
    assert converted.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    root = TurnBasedState(state_from_request(game, request, 3), seat, converted)
    assert root.current_player() == seat  # the searching seat first: no one has chosen yet
    other = 1 - seat
    after = []
    for slot in (0, 1):
        child = root.clone()
        child.apply_action(slot)
        assert child.current_player() == other and not child.inner.engine.is_over()
        after.append(child)
    assert after[0].information_state_string(other) == after[1].information_state_string(other)
    assert after[0].information_state_string(seat) != after[1].information_state_string(seat)
    # Resampled for the other seat, the seat's choice is drawn afresh; its own view is kept.
    draws = iter([0.25, 0.99] * 4)
    twin = after[0].resample_from_infostate(other, lambda: next(draws))
    assert twin.information_state_string(other) == after[0].information_state_string(other)
    assert twin.pending[seat] == int(0.99 * len(twin.engine.legal_actions(seat)))
    # Once both have chosen, the joint move is applied and the seats decide again.
    after[0].apply_action(0)
    assert after[0].pending == {} and after[0].inner.engine is not root.inner.engine


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_worlds_alike_to_the_seat_get_the_same_move(name: str) -> None:
    request, seat = _simultaneous_request(name)
    game = load_game(name, {"players": 2})
    converted = pyspiel.convert_to_turn_based(game)
    worlds = [TurnBasedState(state_from_request(game, request, world), seat, converted) for world in (11, 12)]
    assert worlds[0].engine.observation(seat) == worlds[1].engine.observation(seat)
    assert repr(worlds[0].engine.observation(1 - seat)) != repr(worlds[1].engine.observation(1 - seat)) or (
        repr(vars(worlds[0].engine)) != repr(vars(worlds[1].engine))
    )
    moves = [ismcts_bot.guided_factory(game, seat, simulations=4).step(world) for world in worlds]
    assert moves[0] == moves[1]
    assert 0 <= moves[0] < len(request.legal_actions)


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_a_match_finishes_legally_with_the_guided_ismcts(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KINGMAKER_ISMCTS_GUIDED_SIMULATIONS", "2")
    bot = getattr(ismcts_bot, "".join(word.title() for word in name.split("_")) + "GuidedIsmcts")()
    match = play_local(name, [RandomBot(1), bot], seed=4)
    assert match.result.ranks and len(match.log) > 2


def test_the_modules_command_plays_the_guided_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m kingmaker.sample_bots.ismcts_bot kings_road --guided``: the bot it connects
    is the guided search, given the simultaneous game one seat at a time, and plays a match."""
    import kingmaker.sdk
    from kingmaker.sample_bots.ismcts_guide import WideningISMCTSBot

    connected = []
    monkeypatch.setattr(kingmaker.sdk, "run", lambda bot, **kwargs: connected.append(bot))
    ismcts_bot.main(["kings_road", "--guided", "--simulations", "2"])
    bot = connected[0]
    assert bot.name == "ismcts-guided" and bot.turn_based
    assert isinstance(bot.factory(load_game("kings_road", {"players": 2}), 0), WideningISMCTSBot)
    match = play_local("kings_road", [RandomBot(1), bot], seed=4)
    assert match.result.ranks and len(match.log) > 2
