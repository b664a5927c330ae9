"""The Kingdoms proto mirrors the dataclasses: every observation and action of real games survives
the generic codec's round trip, and every action type has its field in the Action oneof."""

from __future__ import annotations

import random

import pytest

from kingmaker.games.kingdoms import GAME
from kingmaker.sdk.codec import codec_for


@pytest.mark.parametrize("options", [{}, {"no_luck": True, "down_to_the_last_castle": True}])
def test_observations_and_legal_actions_round_trip_through_protobuf(options: dict[str, bool]) -> None:
    codec = codec_for("kingdoms")
    state = GAME.new(3, seed=5, options=options)
    chooser = random.Random(5)
    kinds_seen: set[str] = set()
    while not state.is_over():
        seat = state.to_act()[0]
        for viewer in range(3):
            observation = state.observation(viewer)
            assert codec.unpack_observation(codec.pack_observation(observation)) == observation
        legal = state.legal_actions(seat)
        for action in legal:
            assert codec.unpack_action(codec.pack_action(action)) == action
            kinds_seen.add(type(action).__name__)
        state.apply({seat: chooser.choice(legal)})
    final = state.observation(0)
    assert codec.decode_observation(codec.encode_observation(final)) == final
    assert kinds_seen >= {"PlaceCastle", "PlaceDrawnTile"}


def test_every_action_type_has_its_oneof_field() -> None:
    codec = codec_for("kingdoms")
    oneof = codec.action_message.DESCRIPTOR.oneofs_by_name["action"]
    names = {field.message_type.name for field in oneof.fields}
    assert names == {kind.__name__ for kind in GAME.spec.action_types}
