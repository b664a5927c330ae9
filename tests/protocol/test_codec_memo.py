"""The codec remembers sub-messages it has built or read; what it sends must not change by it.

An observation is mostly the same from one request to the next, so the codec copies parts it
has seen before from their earlier encoding (and reuses frozen values it decoded from the same
bytes). These tests compare, over random games of every game, the bytes and values with warm
memories against those from empty ones.
"""

from __future__ import annotations

import random

import pytest

from kingmaker.games.registry import all_games, get_game
from kingmaker.sdk import codec as codec_module
from kingmaker.sdk.codec import codec_for


def _observations(game_name: str, games: int) -> list[object]:
    game = get_game(game_name)
    chooser = random.Random(7)
    seen = []
    for number in range(games):
        state = game.new(game.spec.max_players, 1000 + number)
        while not state.is_over():
            seen.extend(state.observation(seat) for seat in range(state.players))
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    return seen


def _forget_everything() -> None:
    """A cold codec: every plan, encoder and decoder made anew (the encoders live in the plans)."""
    for cached in (
        codec_module._plan,
        codec_module._encoder,
        codec_module._decode_plan,
        codec_module._decoder,
    ):
        cached.cache_clear()


@pytest.mark.parametrize("game_name", [game.spec.name for game in all_games()])
def test_warm_memories_send_the_same_bytes_and_read_the_same_values(game_name: str) -> None:
    codec = codec_for(game_name)
    observations = _observations(game_name, 2)
    warm = [codec.pack_observation(observation).value for observation in observations]
    decoded_warm = [codec.decode_observation(codec.encode_observation(o)) for o in observations]
    for observation, sent, decoded in zip(observations, warm, decoded_warm, strict=True):
        _forget_everything()
        assert codec.pack_observation(observation).value == sent
        assert decoded == observation
        assert codec.decode_observation(codec.encode_observation(observation)) == observation


def test_a_part_handed_out_again_is_sent_as_it_is_now_not_as_it_was() -> None:
    """The memory by identity must never answer for a different value: not for an object that
    died and whose id was reused, and not for a mutable part changed in place (never kept)."""
    from kingmaker.games.kingdoms.observation import Cell, Row

    codec = codec_for("kingdoms")
    encode = codec_module._encoder(codec.observation_message.DESCRIPTOR.fields_by_name["board"].message_type)
    for round_ in range(200):  # fresh objects, many ids reused: each must encode as itself
        row = Row(tuple(Cell(tile=None, castle=None) for _ in range(6 - round_ % 6)))
        assert len(encode(row).cells) == 6 - round_ % 6
    cells = [Cell(tile=None, castle=None)]
    mutable_row = Row(cells)  # type: ignore[arg-type]  # a list: unhashable, so mutable
    assert len(encode(mutable_row).cells) == 1
    cells.append(Cell(tile=None, castle=None))
    assert len(encode(mutable_row).cells) == 2
