"""Seed plus actions keeps replaying to the same game: a fingerprint of random games per engine.

Stored matches are replayed by re-running the engine (``kingmaker replay``), so an optimisation
that reordered a legal list, moved an RNG draw or changed a score would break old logs without
failing any rule test. Each digest covers, for a few seeded random games of every option
combination and player count: every legal list in order, each acting seat's observation, the
result and the final views, all in the JSON form the logs use. The digests were taken from the
engines as of bc71669, before the speed work. A deliberate rules change bumps the game's edition
and its digest together.

    python tests/games/test_engine_fingerprints.py   # prints the current digests
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random

import pytest

from kingmaker.games import Game, all_games, get_game, serial

GAMES_PER_ENGINE = 12

DIGESTS = {
    "kingdoms": "6ca338aa479ff23622d4956c13eec94141b10ce3491606568070d61b3a2a983c",
    "kings_road": "09a0d7297774d6dd42b8495fbcb9a5052c970fa85f60be11c5dafc759b1d9d48",
    "kingsburg": "9893e7f90f70c2005bb5209105516d4151d8937d42ae5eafcedfec640b130040",
    "kingsville": "7c26adeddf272c644bc4831003efa28d29792a90416bb58b10203b1ef2728a0a",
}


def fingerprint(game: Game, games: int = GAMES_PER_ENGINE) -> str:
    spec = game.spec
    names = [option.name for option in spec.options]
    choices = [option.choices or (option.default,) for option in spec.options]
    combos = [dict(zip(names, values, strict=True)) for values in itertools.product(*choices)]
    counts = range(spec.min_players, spec.max_players + 1)
    digest = hashlib.sha256()

    def add(value: object) -> None:
        digest.update(json.dumps(value, sort_keys=True).encode())

    for number in range(games):
        options = combos[number % len(combos)]
        players = counts[number % len(counts)]
        state = game.new(players, number, options)
        chooser = random.Random(number)
        while not state.is_over():
            joint = {}
            for seat in state.to_act():
                legal = state.legal_actions(seat)
                add([serial.action_to_data(action) for action in legal])
                add(serial.to_data(state.observation(seat)))
                joint[seat] = chooser.choice(legal)
            state.apply(joint)
        add(serial.to_data(state.result()))
        add([serial.to_data(state.observation(seat)) for seat in range(players)])
    return digest.hexdigest()


@pytest.mark.parametrize("name", sorted(DIGESTS))
def test_random_games_play_exactly_as_they_always_have(name: str) -> None:
    assert fingerprint(get_game(name)) == DIGESTS[name]


def test_every_game_has_a_fingerprint() -> None:
    assert sorted(DIGESTS) == sorted(game.spec.name for game in all_games())


if __name__ == "__main__":
    for game in all_games():
        print(f'    "{game.spec.name}": "{fingerprint(game)}",')
