"""The environments beside their engine: seat decisions per second through the PettingZoo AEC
environment (arrays, masks, agent iteration) and through the engine alone as a referee drives it
(each acting seat's observation and legal actions, then the joint action), the two alternating in
one run, random games at 2 seats. The goal: the wrapper costs at most 2x the engine (ratio ≥ 0.5).
Both count this process's CPU seconds, not wall time: on the shared machine a wall clock mostly
measures the other processes (the same run's ratios spread 2-3x by wall time).

    .venv/bin/python bench/envs.py [--quick]
"""

from __future__ import annotations

import random
import sys
import time

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


def env_decisions_per_second(game_name: str, games: int, seed: int) -> float:
    table = env(game_name, players=PLAYERS)
    chooser = random.Random(seed)  # as the engine's loop chooses: numpy's choice alone cost 10-20 µs
    decisions = 0
    started = time.process_time()
    for number in range(games):
        table.reset(seed=seed * 100_000 + number)
        for _ in table.agent_iter():
            observation, _, terminated, truncated, _ = table.last()
            if terminated or truncated:
                table.step(None)
                continue
            table.step(chooser.randrange(int(observation["action_mask"].sum())))  # the legal slots come first
            decisions += 1
    return decisions / (time.process_time() - started)


def rows(quick: bool) -> list[Row]:
    runs, games = (3, 4) if quick else (5, 20)
    return [_row(name, runs, games) for name in game_names()]


def _row(name: str, runs: int, games: int) -> Row:
    seeds = iter(range(1000))
    ours, theirs, load = alternate_with_load(
        lambda: env_decisions_per_second(name, games, next(seeds)),
        lambda: engine_decisions_per_second(name, games, next(seeds)),
        runs,
    )
    return Row("envs", f"{name}, PettingZoo AEC, {PLAYERS} seats", "decisions/s", ours,
               reference="engine alone", reference_value=theirs,
               goal="≥ 0.5 of the engine", met=ours.median >= 0.5 * theirs.median, load=load)  # fmt: skip


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "envs")
