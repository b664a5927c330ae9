"""Properties of random Kingsburg games: legality, invariants, replay and hidden information."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kingmaker.games import conformance
from kingmaker.games.kingsburg import GAME
from kingmaker.games.kingsburg.actions import Influence
from kingmaker.games.kingsburg.state import KingsburgState

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
seeds = st.integers(0, 2**31 - 1)
players = st.integers(2, 5)


def _check_invariants(state: KingsburgState, envoy_placements: int) -> None:
    for province in state.provinces:
        assert min(province.gold, province.wood, province.stone, province.plus_two) >= 0
        assert province.vp >= 0
    crowded = [advisor for advisor in range(1, 19) if len(state.court[advisor]) > 1]
    # Only the Envoy adds a second group, and the one Envoy adds at most one per season.
    assert len(crowded) <= envoy_placements <= 1
    assert all(len(state.court[advisor]) == 2 for advisor in crowded)


@SETTINGS
@given(players=players, seed=seeds, policy_seed=seeds)
@example(players=3, seed=503, policy_seed=332442)  # three seasons passed with only influence decisions
def test_random_games_keep_every_invariant_and_every_legal_action_applies(
    players: int, seed: int, policy_seed: int
) -> None:
    state = GAME.new(players, seed)
    assert isinstance(state, KingsburgState)
    chooser = random.Random(policy_seed)
    envoy_placements = 0
    season = (state.year, state.phase)
    while not state.is_over():
        if (state.year, state.phase) != season:
            # Count by the game's own season: two seasons can pass with no other decision between
            # their INFLUENCE decisions, and the court is cleared at each.
            season = (state.year, state.phase)
            envoy_placements = 0
        joint = {seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()}
        for action in joint.values():
            if isinstance(action, Influence) and action.envoy:
                envoy_placements += 1
        state.apply(joint)
        _check_invariants(state, envoy_placements)
    assert len(state.result().scores) == players


@SETTINGS
@given(players=players, seed=seeds, policy_seed=seeds)
def test_a_replay_from_seed_and_actions_ends_the_same(players: int, seed: int, policy_seed: int) -> None:
    playout = conformance.random_playout(GAME, players, seed, policy_seed=policy_seed)
    conformance.check_replay(GAME, playout)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=players, seed=seeds, policy_seed=seeds)
def test_no_observation_leaks_another_seats_peek_or_the_hidden_deck(
    players: int, seed: int, policy_seed: int
) -> None:
    playout = conformance.random_playout(GAME, players, seed, policy_seed=policy_seed)
    conformance.check_no_leaks(GAME, playout, samples=30, seed=policy_seed)


def test_the_leak_check_really_perturbs_secrets() -> None:
    changed = 0
    for seed in range(8):
        playout = conformance.random_playout(GAME, 2 + seed % 4, seed, policy_seed=seed)
        changed += conformance.check_no_leaks(GAME, playout, samples=30, seed=seed)
    # A perturbation of a seat's own peek must show in its own view, or the check proves nothing.
    assert changed > 0


def test_a_peeking_seat_sees_the_card_the_others_do_not() -> None:
    for seed in range(40):
        state = GAME.new(3, seed)
        assert isinstance(state, KingsburgState)
        chooser = random.Random(seed)
        while not state.is_over():
            peekers = [s for s, p in enumerate(state.provinces) if p.peeked_year == state.year]
            if peekers and not state.revealed:
                others = [s for s in range(3) if s not in peekers]
                assert state.observation(peekers[0]).enemy == state.enemy()
                assert all(state.observation(s).enemy is None for s in others)
                return
            state.apply({s: chooser.choice(state.legal_actions(s)) for s in state.to_act()})
    raise AssertionError("no random game had anyone influence the General or the Queen")


@settings(max_examples=10, deadline=None)
@given(seed=seeds, policy_seed=seeds)
def test_clone_is_independent(seed: int, policy_seed: int) -> None:
    conformance.check_clone(GAME, 4, seed, policy_seed)
