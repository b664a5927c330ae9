"""The rules engines alone, in-process: random games per second per game (at its most players),
the cost of encoding one request (observation and legal actions) as the referee does, and the
cost of one clone() of a mid-game state (search bots clone per simulated move)."""

from __future__ import annotations

import random
import sys
import time

from table import Row, Spread

from kingmaker.games.registry import all_games, get_game
from kingmaker.sdk.codec import codec_for


def games_per_second(game_name: str, games: int, seed: int) -> float:
    game = get_game(game_name)
    chooser = random.Random(seed)
    started = time.perf_counter()
    for number in range(games):
        state = game.new(game.spec.max_players, seed * 100_000 + number)
        while not state.is_over():
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    return games / (time.perf_counter() - started)


def encode_microseconds(game_name: str, games: int) -> float:
    game = get_game(game_name)
    codec = codec_for(game_name)
    chooser = random.Random(0)
    spent, requests = 0.0, 0
    for number in range(games):
        state = game.new(game.spec.max_players, number)
        while not state.is_over():
            for seat in state.to_act():
                tick = time.perf_counter()
                codec.pack_observation(state.observation(seat))
                [codec.pack_action(action) for action in state.legal_actions(seat)]
                spent += time.perf_counter() - tick
                requests += 1
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    return spent / requests * 1e6


def clone_microseconds(game_name: str, seed: int, rounds: int) -> float:
    """Mean time of one clone() over 20 states 5 to 40 random decisions into their games."""
    game = get_game(game_name)
    chooser = random.Random(seed)
    states = []
    for number in range(20):
        state = game.new(game.spec.max_players, seed * 100_000 + number)
        for _ in range(chooser.randrange(5, 40)):
            if state.is_over():
                break
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
        states.append(state)
    started = time.perf_counter()
    for _ in range(rounds):
        for state in states:
            state.clone()
    return (time.perf_counter() - started) / (rounds * len(states)) * 1e6


def rows(quick: bool) -> list[Row]:
    runs, games = (3, 40) if quick else (5, 200)
    found = []
    for game in all_games():
        name = game.spec.name
        speed = Spread.of([games_per_second(name, games, seed) for seed in range(runs)])
        goal, met = ("≥ 1,000 games/s", speed.median >= 1000) if name == "kingdoms" else ("", None)
        found.append(Row("engines", f"{name}, random game, {game.spec.max_players} players", "games/s",
                         speed, goal=goal, met=met))  # fmt: skip
        encode = Spread.of([encode_microseconds(name, max(2, games // 20)) for _ in range(runs)])
        found.append(Row("engines", f"{name}, encoding one request", "µs", encode))
        clone = Spread.of([clone_microseconds(name, seed, 5 if quick else 25) for seed in range(runs)])
        found.append(Row("engines", f"{name}, clone() of a mid-game state", "µs", clone))
    return found


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "engines")
