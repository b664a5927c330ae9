"""The play page shows a seat no more than its observation: its data and its drawn board, made at
every point of a random game of each game for every seat, come out the same when any other
seat's secrets, or what nobody may know, are changed (the game's own ``perturb_secrets``)."""

from __future__ import annotations

import json
import random

import pytest

from kingmaker.games.conformance import random_playout
from kingmaker.games.registry import game_names, get_game
from kingmaker.server.web.play_view import seat_view

STEPS = 150
"""Decisions checked per game (a whole game of Kingsburg draws many hundreds of boards)."""


@pytest.mark.parametrize("name", game_names())
def test_the_page_of_a_seat_does_not_change_with_another_seats_secrets(name: str) -> None:
    game = get_game(name)
    perturb = game.perturb_secrets
    # A game with nothing hidden (King's Road: its cards are chosen at once and shown together)
    # has no secrets to change; its pages are still made from each seat's observation alone.
    assert perturb is not None or not game.spec.hidden_information
    players = game.spec.max_players
    names = tuple(f"seat{seat}" for seat in range(players))
    playout = random_playout(game, players, seed=11)
    chooser = random.Random(3)
    state = game.new(players, playout.seed, playout.options)
    checked = 0
    for joint in playout.log[:STEPS]:
        for seat in state.to_act():
            page = seat_view(name, seat, names, state.observation(seat), state.legal_actions(seat))
            checked += 1
            if perturb is None:
                continue
            owner = chooser.choice([None, *(other for other in range(players) if other != seat)])
            other = perturb(state, owner, chooser.randrange(2**31))
            again = seat_view(name, seat, names, other.observation(seat), other.legal_actions(seat))
            assert json.dumps(again, sort_keys=True) == json.dumps(page, sort_keys=True), (
                f"{name}: seat {seat}'s page changed with the secrets of {owner} (None: nobody's)"
            )
        state.apply(joint)
    assert checked >= min(STEPS, len(playout.log))
