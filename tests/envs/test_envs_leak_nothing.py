"""The environments show a seat exactly what the referee would: its observation array and action
mask never change with another seat's secrets, with what nobody may know, or with a choice
another seat has made but that is not yet revealed (a simultaneous decision)."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kingmaker.envs.pettingzoo import KingmakerEnv, env
from kingmaker.games.registry import get_game

SECRET_GAMES = [
    name for name in ("kingdoms", "kingsburg", "kingsville", "kings_road") if get_game(name).perturb_secrets
]


def _play(game: KingmakerEnv, steps: int, rng: random.Random) -> None:
    for _ in range(steps):
        if game.table.is_over():
            return
        mask = game.observe(game.agent_selection)["action_mask"]
        game.step(rng.choice(list(np.flatnonzero(mask))))


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(SECRET_GAMES),
    players=st.integers(2, 5),
    seed=st.integers(0, 2**20),
    steps=st.integers(0, 120),
    owner=st.integers(-1, 4),
    perturbation=st.integers(0, 2**20),
)
def test_no_seat_sees_another_seats_secrets(
    name: str, players: int, seed: int, steps: int, owner: int, perturbation: int
) -> None:
    spec = get_game(name).spec
    players = min(max(players, spec.min_players), spec.max_players)
    game = env(name, players=players)
    game.reset(seed=seed)
    _play(game, steps, random.Random(seed))
    table = game.table
    if table.is_over():
        return
    secret_owner = owner if 0 <= owner < players else None
    before = {seat: game.observe(agent) for seat, agent in enumerate(game.possible_agents)}
    perturb = get_game(name).perturb_secrets
    assert perturb is not None
    table.state = perturb(table.state, secret_owner, perturbation)
    for seat, agent in enumerate(game.possible_agents):
        if seat == secret_owner:
            continue
        after = game.observe(agent)
        assert np.array_equal(after["observation"], before[seat]["observation"]), f"{agent} saw a secret"
        assert np.array_equal(after["action_mask"], before[seat]["action_mask"])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**20), players=st.integers(2, 5), steps=st.integers(0, 40), data=st.data())
def test_a_simultaneous_choice_stays_hidden_until_all_have_chosen(
    seed: int, players: int, steps: int, data: st.DataObject
) -> None:
    games = [env("kings_road", players=players) for _ in range(2)]
    for game in games:
        game.reset(seed=seed)
        _play(game, steps, random.Random(seed))
    first = games[0]
    if first.table.is_over() or len(first.table.waiting()) < 2:
        return
    chooser = first.agent_selection
    legal = np.flatnonzero(first.observe(chooser)["action_mask"])
    picks = data.draw(st.lists(st.sampled_from(list(legal)), min_size=2, max_size=2))
    for game, pick in zip(games, picks, strict=True):
        game.step(int(pick))
    waiting = games[0].agent_selection
    assert waiting != chooser
    views = [game.observe(waiting) for game in games]
    assert np.array_equal(views[0]["observation"], views[1]["observation"])
    assert np.array_equal(views[0]["action_mask"], views[1]["action_mask"])


def test_a_seat_sees_its_own_secret() -> None:
    """The check above means something: the owner's own array does change (its starting tile)."""
    game = env("kingdoms", players=2)
    game.reset(seed=3)
    before = game.observe("seat_0")["observation"]
    perturb = get_game("kingdoms").perturb_secrets
    assert perturb is not None
    changed = 0
    for perturbation in range(10):
        game.table.state = perturb(game.table.state, 0, perturbation)
        changed += not np.array_equal(game.observe("seat_0")["observation"], before)
    assert changed > 0
