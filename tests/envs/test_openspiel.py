"""The games registered with OpenSpiel pass its own random simulation test (serialization
included) for every seat count, keep what a seat cannot see out of its strings and tensors, and
run OpenSpiel's ISMCTS through the games' determinizers."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from env_cases import seat_counts

import kingmaker.envs.openspiel  # noqa: F401  (registers the games)
from kingmaker.games.registry import game_names


def test_every_game_is_registered_under_its_short_name() -> None:
    registered = set(pyspiel.registered_names())
    assert {f"kingmaker_{name}" for name in game_names()} <= registered
    dynamics = {name: pyspiel.load_game(f"kingmaker_{name}").get_type().dynamics for name in game_names()}
    simultaneous = pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert {name for name, kind in dynamics.items() if kind == simultaneous} == {"kings_road", "kingsburg"}


@pytest.mark.parametrize(("name", "players"), seat_counts())
def test_random_sim_test_passes(name: str, players: int) -> None:
    game = pyspiel.load_game(f"kingmaker_{name}", {"players": players})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_options_are_parameters() -> None:
    game = pyspiel.load_game("kingmaker_kingdoms", {"players": 3, "no_luck": True, "score_as_you_go": True})
    assert game.num_players() == 3
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    with pytest.raises(ValueError, match="2 to 4 players, not 9"):
        pyspiel.load_game("kingmaker_kingdoms", {"players": 9})


def _state_after(game: object, seed_bytes: list[int], moves: int) -> object:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    for byte in seed_bytes:
        state.apply_action(byte)
    rng = np.random.default_rng(5)
    for _ in range(moves):
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def test_the_seed_is_hidden_and_the_information_state_recalls_the_seats_own_history() -> None:
    game = pyspiel.load_game("kingmaker_kingdoms", {"players": 2})
    ours = _state_after(game, [1, 2, 3, 4], 0)
    assert ours.information_state_string(1) != ours.information_state_string(0)
    later = _state_after(game, [1, 2, 3, 4], 6)
    assert later.information_state_string(0) != ours.information_state_string(0)
    resampled = later.resample_from_infostate(
        later.current_player(), pyspiel.UniformProbabilitySampler(0.0, 1.0)
    )
    player = later.current_player()
    assert resampled.information_state_string(player) == later.information_state_string(player)
    assert resampled.observation_string(player) == later.observation_string(player)
    assert resampled.observation_tensor(player) == later.observation_tensor(player)
    assert resampled.legal_actions() == later.legal_actions()


def test_ismcts_plays_a_game() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("kingmaker_kingsville", {"players": 2})
    rng = np.random.RandomState(3)
    bot = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rng), 2.0, max_simulations=4, random_state=rng
    )
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(int(rng.randint(256)))
    action = bot.step(state)
    assert action in state.legal_actions()


@pytest.mark.parametrize("name", game_names())
def test_node_questions_answered_in_python_agree_with_pyspiels_own(name: str) -> None:
    """``KingmakerState`` answers these from Python (and keeps them until the engine changes);
    pyspiel's own, through C++, must say the same at every node of a random game."""
    game = pyspiel.load_game(f"kingmaker_{name}", {"players": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(7)
    questions = ("is_chance_node", "is_simultaneous_node", "is_player_node", "is_terminal", "current_player")
    while True:
        for question in questions:
            assert getattr(state, question)() == getattr(pyspiel.State, question)(state), question
        for player in [None, 0, 1, 2]:
            ours = state.legal_actions() if player is None else state.legal_actions(player)
            theirs = pyspiel.State.legal_actions(state, *([] if player is None else [player]))
            assert ours == theirs, player
        if state.is_terminal():
            break
        if state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(player))) for player in range(3)])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
