"""Invariants of King's Road over random games, driven by hypothesis."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from kingmaker.games import conformance
from kingmaker.games.kings_road import GAME, Card, KingsRoadState, Observation, Phase, PlayCards

SETTINGS = settings(max_examples=40, deadline=None)
players_st = st.integers(2, 5)
seeds = st.integers(0, 2**31 - 1)


def random_game(
    players: int, policy_seed: int, permanent: bool
) -> Iterator[tuple[KingsRoadState, dict[int, PlayCards]]]:
    """Yield (state before, joint action) for every decision of a random game, then the end."""
    state = GAME.new(players, 0, {"permanent_nobles": permanent})
    assert isinstance(state, KingsRoadState)
    chooser = random.Random(policy_seed)
    while not state.is_over():
        joint = {seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()}
        yield state, joint
        state.apply(joint)
    yield state, {}


@SETTINGS
@given(players=players_st, policy_seed=seeds, permanent=st.booleans())
def test_every_seat_always_owns_twenty_markers(players: int, policy_seed: int, permanent: bool) -> None:
    for state, _ in random_game(players, policy_seed, permanent):
        board = state.board
        for seat in range(players):
            assert board.markers_owned(seat) == 20
            assert board.supply[seat] >= 0
            assert all(counts[seat] >= 0 for counts in board.markers.values())
        for holders in board.nobles.values():
            assert len(holders) == len(set(holders))
            assert len(holders) <= (players if permanent else 1)


@SETTINGS
@given(players=players_st, policy_seed=seeds, permanent=st.booleans())
def test_dragon_and_witch_are_used_at_most_once_by_each_seat(
    players: int, policy_seed: int, permanent: bool
) -> None:
    used: Counter[tuple[int, Card]] = Counter()
    for state, joint in random_game(players, policy_seed, permanent):
        # The hands hold exactly the specials not played in the decisions so far.
        for seat in range(players):
            assert (Card.DRAGON in state.hands[seat]) == (used[seat, Card.DRAGON] == 0)
            assert (Card.WITCH in state.hands[seat]) == (used[seat, Card.WITCH] == 0)
        for seat, play in joint.items():
            for card in play.cards:
                if card in (Card.DRAGON, Card.WITCH):
                    used[seat, card] += 1
            expected = min(3, state.board.supply[seat])
            assert len(play.cards) == expected or play.cards == (Card.WITCH,)
    assert all(count == 1 for count in used.values())


@SETTINGS
@given(players=players_st, seed=seeds, policy_seed=seeds, permanent=st.booleans())
def test_a_replay_from_seed_and_actions_ends_the_same(
    players: int, seed: int, policy_seed: int, permanent: bool
) -> None:
    options = {"permanent_nobles": permanent}
    playout = conformance.random_playout(GAME, players, seed, options, policy_seed)
    conformance.check_replay(GAME, playout)
    final = playout.final
    assert isinstance(final, KingsRoadState)
    assert final.result().scores == tuple(final.scores)
    assert max(final.scores) >= 40


def _public_part(observation: Observation) -> Observation:
    """The observation without the fields addressed to its own seat."""
    public: Observation = replace(observation, seat=0, hand=(), cards_to_play=0)
    return public


@SETTINGS
@given(players=players_st, policy_seed=seeds, permanent=st.booleans())
def test_no_observation_holds_anything_another_seat_could_not_know(
    players: int, policy_seed: int, permanent: bool
) -> None:
    for state, _ in random_game(players, policy_seed, permanent):
        views = [state.observation(seat) for seat in range(players)]
        # Everything but the seat's own hand and card count is the same for every seat ...
        assert len({_public_part(view) for view in views}) == 1
        for seat, view in enumerate(views):
            # ... and the own hand is public anyway: eleven cards less the Dragon and Witch
            # that every seat saw revealed.
            mine = view.standings[seat]
            known = {*Card} - ({Card.DRAGON} if not mine.has_dragon else set())
            known -= {Card.WITCH} if not mine.has_witch else set()
            assert set(view.hand) == known
        # The Witch players of a round re-choose in one joint decision, none before another.
        if state.phase is Phase.WITCH_RECHOOSE:
            witches = {r.seat for r in views[0].revealed if r.cards == (Card.WITCH,)}
            assert set(state.to_act()) == witches
            assert all(r.seat not in witches for r in views[0].revealed if r.cards != (Card.WITCH,))
        # Nothing of a round's plays shows before its joint decision is applied.
        if state.phase is Phase.CHOOSE_CARDS:
            assert views[0].revealed == ()
