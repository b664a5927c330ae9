"""The conformance suite over every registered game, driven by hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kingmaker.games import Game, all_games, conformance

GAMES = all_games()
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _players(game: Game) -> st.SearchStrategy[int]:
    return st.integers(game.spec.min_players, game.spec.max_players)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.name)
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 2**31 - 1), policy_seed=st.integers(0, 2**31 - 1))
def test_random_play_always_applies_ends_and_replays(
    game: Game, data: st.DataObject, seed: int, policy_seed: int
) -> None:
    players = data.draw(_players(game))
    playout = conformance.random_playout(game, players, seed, policy_seed=policy_seed)
    conformance.check_replay(game, playout)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.name)
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 2**31 - 1), policy_seed=st.integers(0, 2**31 - 1))
def test_every_option_value_plays_to_the_end(
    game: Game, data: st.DataObject, seed: int, policy_seed: int
) -> None:
    options = {
        option.name: data.draw(st.sampled_from(option.choices or (option.default,)))
        for option in game.spec.options
    }
    players = data.draw(_players(game))
    playout = conformance.random_playout(game, players, seed, options, policy_seed)
    conformance.check_replay(game, playout)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.name)
@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), policy_seed=st.integers(0, 2**31 - 1))
def test_clone_is_independent(game: Game, seed: int, policy_seed: int) -> None:
    conformance.check_clone(game, game.spec.max_players, seed, policy_seed)


@pytest.mark.parametrize("game", [g for g in GAMES if g.spec.hidden_information], ids=lambda g: g.spec.name)
def test_no_seat_sees_another_seats_secrets(game: Game) -> None:
    changed = 0
    for seed in range(6):
        players = game.spec.min_players + seed % (game.spec.max_players - game.spec.min_players + 1)
        playout = conformance.random_playout(game, players, seed, policy_seed=seed)
        changed += conformance.check_no_leaks(game, playout, seed=seed)
    # The check only proves something if the perturbations really changed some seat's secrets.
    assert changed > 0


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.spec.name)
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 2**31 - 1), policy_seed=st.integers(0, 2**31 - 1))
def test_a_spectator_sees_no_seats_secrets(
    game: Game, data: st.DataObject, seed: int, policy_seed: int
) -> None:
    players = data.draw(_players(game))
    options = {
        option.name: data.draw(st.sampled_from(option.choices or (option.default,)))
        for option in game.spec.options
    }
    playout = conformance.random_playout(game, players, seed, options, policy_seed)
    perturbed = conformance.check_spectator_view(game, playout, seed=policy_seed)
    assert perturbed > 0 or game.perturb_secrets is None
