"""The environments beside their engine: seat decisions per second through each wrapper and
through the engine alone as a referee drives it (each acting seat's observation and legal actions,
then the joint action), the two alternating in one run, random games at 2 seats. The goal: each
wrapper costs at most 2x the engine (ratio ≥ 0.5), in every game.

- PettingZoo: the AEC environment's loop (``agent_iter``, ``last``, ``step``), the policy reading
  the mask (``np.count_nonzero``: ``mask.sum()`` is 4x dearer, 3-4 µs a step charged to us).
- OpenSpiel: the loaded game's states, each deciding seat's observation through
  ``open_spiel.python.observation.make_observation`` (OpenSpiel's main way to observe in Python;
  ``state.observation_tensor()`` returns a Python list, and making its thousands of floats costs
  pyspiel more than all the rest), its ``legal_actions``, then ``apply_action`` or, at a
  simultaneous node, ``apply_actions`` (every seat gives one; only those deciding are observed and
  counted). The seed's four chance nodes are played but not counted.

All choose among the legal actions with the same Python ``random``. All count this process's CPU
seconds, not wall time: on the shared machine a wall clock mostly measures the other processes
(the same run's ratios spread 2-3x by wall time).

    .venv/bin/python bench/envs.py [--quick]
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

import numpy as np
from table import Row, alternate_with_load

from kingmaker.envs.pettingzoo import env
from kingmaker.games.registry import game_names, get_game

PLAYERS = 2


def engine_decisions_per_second(game_name: str, games: int, seed: int) -> float:
    game = get_game(game_name)
    chooser = random.Random(seed)
    decisions = 0
    started = time.process_time()
    for number in range(games):
        state = game.new(PLAYERS, seed * 100_000 + number)
        while not state.is_over():
            joint = {}
            for seat in state.to_act():
                state.observation(seat)
                joint[seat] = chooser.choice(state.legal_actions(seat))
                decisions += 1
            state.apply(joint)
    return decisions / (time.process_time() - started)


def pettingzoo_decisions_per_second(game_name: str, games: int, seed: int) -> float:
    table = env(game_name, players=PLAYERS)
    chooser = random.Random(seed)  # as the engine's loop chooses: numpy's choice alone cost 10-20 µs
    count = np.count_nonzero
    decisions = 0
    started = time.process_time()
    for number in range(games):
        table.reset(seed=seed * 100_000 + number)
        for _ in table.agent_iter():
            observation, _, terminated, truncated, _ = table.last()
            if terminated or truncated:
                table.step(None)
                continue
            table.step(chooser.randrange(count(observation["action_mask"])))  # the legal slots come first
            decisions += 1
    return decisions / (time.process_time() - started)


def openspiel_decisions_per_second(game_name: str, games: int, seed: int) -> float:
    from open_spiel.python.observation import make_observation

    from kingmaker.envs.openspiel import SEED_BYTES, load_game

    game = load_game(game_name, {"players": PLAYERS})
    observation = make_observation(game)
    chooser = random.Random(seed)
    decisions = 0
    started = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        for _ in range(SEED_BYTES):
            state.apply_action(chooser.randrange(256))
        while not state.is_terminal():
            if state.is_simultaneous_node():
                acting = state.engine.to_act()  # the seats a referee would ask
                joint = []
                for player in range(PLAYERS):
                    if player in acting:
                        observation.set_from(state, player)
                        decisions += 1
                    joint.append(chooser.choice(state.legal_actions(player)))
                state.apply_actions(joint)
            else:
                player = state.current_player()
                observation.set_from(state, player)
                state.apply_action(chooser.choice(state.legal_actions(player)))
                decisions += 1
    return decisions / (time.process_time() - started)


WRAPPERS: dict[str, Callable[[str, int, int], float]] = {
    "PettingZoo AEC": pettingzoo_decisions_per_second,
    "OpenSpiel": openspiel_decisions_per_second,
}


def rows(quick: bool) -> list[Row]:
    runs, games = (3, 4) if quick else (5, 20)
    return [_row(name, wrapper, runs, games) for name in game_names() for wrapper in WRAPPERS]


def _row(name: str, wrapper: str, runs: int, games: int) -> Row:
    seeds = iter(range(1000))
    measure = WRAPPERS[wrapper]
    ours, theirs, load = alternate_with_load(
        lambda: measure(name, games, next(seeds)),
        lambda: engine_decisions_per_second(name, games, next(seeds)),
        runs,
    )
    return Row("envs", f"{name}, {wrapper}, {PLAYERS} seats", "decisions/s", ours,
               reference="engine alone", reference_value=theirs,
               goal="≥ 0.5 of the engine", met=ours.median >= 0.5 * theirs.median, load=load)  # fmt: skip


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "envs")
