"""The card set file and the proto: what the engine loads, and what bots in any language read."""

from __future__ import annotations

import json
import random
from importlib import resources

import pytest

from kingmaker.games.kingsville import GAME
from kingmaker.games.kingsville.cards import CARDS, parse
from kingmaker.games.kingsville.state import KingsvilleState
from kingmaker.sdk.codec import codec_for


@pytest.mark.parametrize(("players", "wonders", "orders"), [(2, 6, 10), (3, 9, 15), (4, 12, 20)])
def test_every_age_holds_the_setup_table_counts(players: int, wonders: int, orders: int) -> None:
    for age in (1, 2, 3):
        assert len(CARDS.wonder_deck(age, players)) == wonders
        assert len(CARDS.order_deck(age, players)) == orders


def test_card_names_are_unique_and_age_iii_wonders_alone_have_special_points() -> None:
    wonders = [e.card for age in CARDS.wonders for e in age]
    orders = [e.card for age in CARDS.orders for e in age]
    assert len({w.name for w in wonders}) == len(wonders) == 36
    assert len({o.name for o in orders}) == len(orders) == 30
    for card in wonders:
        assert (card.final_points is not None) == (card.age == 3)


def test_people_symbols_let_every_basic_person_be_upgraded() -> None:
    basics = [k for k in CARDS.people if not k.advanced]
    advanced = [k for k in CARDS.people if k.advanced and k.supply > 0]
    assert len(basics) == 4
    assert len(advanced) == 3
    for basic in basics:
        assert any(set(basic.symbols) & set(a.symbols) for a in advanced)
    king = CARDS.kind(CARDS.people[-1].person)
    assert king.advanced
    assert len(king.symbols) == 4


def test_the_engine_loads_the_shipped_json_file() -> None:
    text = resources.files("kingmaker.games.kingsville").joinpath("cards.json").read_text()
    assert parse(json.loads(text)) == CARDS
    assert GAME.spec.edition == CARDS.edition


def test_observations_and_actions_survive_the_proto_round_trip() -> None:
    codec = codec_for("kingsville")
    chooser = random.Random(5)
    for players in (2, 4):
        state = GAME.new(players, players)
        assert isinstance(state, KingsvilleState)
        seen_pending = False
        while not state.is_over():
            seat = state.to_act()[0]
            observation = state.observation(seat)
            assert codec.decode_observation(codec.encode_observation(observation)) == observation
            seen_pending |= observation.pending is not None
            legal = state.legal_actions(seat)
            for action in legal:
                assert codec.decode_action(codec.encode_action(action)) == action
            state.apply({seat: chooser.choice(legal)})
        final = state.observation(0)
        assert codec.decode_observation(codec.encode_observation(final)) == final
        assert seen_pending  # the optional-step fields were on the wire too
