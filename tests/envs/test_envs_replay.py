"""An environment episode is a match of the engine the server runs: its slot choices, answered as
legal-action indices through the SDK's local runner (the referee's protocol), and its log, stored
as the server stores it and replayed, reach the same scores and places."""

from __future__ import annotations

import json

import numpy as np
import pytest
from env_cases import seat_counts

from kingmaker.envs.pettingzoo import env
from kingmaker.games import serial
from kingmaker.games.registry import get_game
from kingmaker.sdk import play_local


@pytest.mark.parametrize(("name", "players"), seat_counts())
def test_an_episode_replays_to_the_same_result(name: str, players: int) -> None:
    game = env(name, players=players)
    game.reset(seed=11)
    rng = np.random.default_rng(11)
    slots: dict[int, list[int]] = {seat: [] for seat in range(players)}
    for agent in game.agent_iter():
        observation, _, terminated, _, info = game.last()
        if terminated:
            game.step(None)
            continue
        slot = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        slots[game.possible_agents.index(agent)].append(slot)
        game.step(slot)
    scores, ranks = info["scores"], info["ranks"]
    seed, log = game.table.seed, game.table.log

    def scripted(seat: int):  # answers the referee with the episode's indices, in order
        answers = iter(slots[seat])
        return lambda request: next(answers)

    match = play_local(name, [scripted(seat) for seat in range(players)], seed=seed)
    assert (match.result.scores, match.result.ranks) == (scores, ranks)

    spec = get_game(name).spec
    stored = json.dumps(
        [{str(seat): serial.action_to_data(action) for seat, action in joint.items()} for joint in log]
    )
    state = get_game(name).new(players, seed)
    for joint in json.loads(stored):
        state.apply({int(seat): serial.action_from_data(spec, data) for seat, data in joint.items()})
    assert state.is_over()
    assert (state.result().scores, state.result().ranks) == (scores, ranks)
