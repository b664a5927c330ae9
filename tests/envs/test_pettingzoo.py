"""The PettingZoo environments pass PettingZoo's own tests for every game, seat count and option,
render the board as text, and refuse what they cannot do with a clear error."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from env_cases import case_id, option_sets, seat_counts
from pettingzoo.test import api_test, parallel_api_test, seed_test

from kingmaker.envs.pettingzoo import env, parallel_env
from kingmaker.envs.table import IllegalAction
from kingmaker.games.api import OptionValue
from kingmaker.games.registry import get_game

SIMULTANEOUS = [(name, players) for name, players in seat_counts() if get_game(name).spec.simultaneous]


@pytest.fixture(autouse=True)
def _quiet_space_advice() -> None:
    # PettingZoo advises Box observations; a dict with an action mask is its own documented form.
    warnings.filterwarnings("ignore", message="Observation space for each agent probably")
    warnings.filterwarnings("ignore", message="Observation is not a NumPy array")


@pytest.mark.parametrize(("name", "players", "options"), option_sets(), ids=map(case_id, option_sets()))
def test_api_test_passes(name: str, players: int, options: dict[str, OptionValue]) -> None:
    api_test(env(name, players=players, render_mode="ansi", **options), num_cycles=100_000)


@pytest.mark.parametrize(("name", "players"), seat_counts())
def test_seed_test_passes(name: str, players: int) -> None:
    seed_test(lambda: env(name, players=players), num_cycles=100_000)


@pytest.mark.parametrize(("name", "players"), SIMULTANEOUS)
def test_parallel_api_test_passes(name: str, players: int) -> None:
    parallel_api_test(parallel_env(name, players=players), num_cycles=100_000)


def test_simultaneous_games_are_the_parallel_ones() -> None:
    assert {name for name, _ in SIMULTANEOUS} == {"kings_road", "kingsburg"}
    with pytest.raises(ValueError, match="no simultaneous decisions"):
        parallel_env("kingdoms")


@pytest.mark.parametrize(("name", "players"), seat_counts())
def test_a_game_plays_to_the_end_with_zero_sum_rewards(name: str, players: int) -> None:
    game = env(name, players=players)
    game.reset(seed=7)
    rng = np.random.default_rng(7)
    totals = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        totals[agent] += reward
        if terminated or truncated:
            game.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        assert len(legal) > 0
        game.step(int(rng.choice(legal)))
    assert sum(totals.values()) == pytest.approx(0.0)
    ranks = info["ranks"]
    best = [agent for agent, seat_rank in zip(game.possible_agents, ranks, strict=True) if seat_rank == 1]
    assert all(totals[agent] == max(totals.values()) for agent in best)


def test_ansi_rendering_prints_the_board() -> None:
    game = env("kingdoms", players=2, render_mode="ansi")
    game.reset(seed=1)
    text = game.render()
    assert isinstance(text, str)
    assert "board:" in text and "gold: 50" in text


def test_an_action_outside_the_mask_is_refused() -> None:
    game = env("kingsville", players=2)
    game.reset(seed=1)
    observation = game.observe(game.agent_selection)
    outside = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(IllegalAction, match=f"chose slot {outside}"):
        game.step(outside)


def test_bad_game_players_and_options_are_refused() -> None:
    with pytest.raises(KeyError, match="unknown game"):
        env("chess")
    with pytest.raises(ValueError, match="2 to 4 players, not 7"):
        env("kingdoms", players=7)
    with pytest.raises(ValueError, match="no option 'speed'"):
        env("kingdoms", speed=True)
    with pytest.raises(ValueError, match="render_mode"):
        env("kingdoms", render_mode="human")


@pytest.mark.parametrize("name", sorted({name for name, _ in seat_counts()}))
def test_an_observation_handed_out_is_the_callers_own(name: str) -> None:
    """Writable, and never changed by later steps: the environment builds each array afresh."""
    game = env(name, players=2)
    game.reset(seed=3)
    kept = []
    for _ in range(30):
        observation, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            break
        assert observation["observation"].flags.writeable and observation["action_mask"].flags.writeable
        kept.append((observation, {key: array.copy() for key, array in observation.items()}))
        game.step(0)
    observation["observation"][:] = -1.0  # the caller's own: writing it changes nothing of the game's
    assert not np.array_equal(game.observe(game.agent_selection)["observation"], observation["observation"])
    for handed, copied in kept[:-1]:
        assert all(np.array_equal(handed[key], copied[key]) for key in copied)
