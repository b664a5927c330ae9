"""The bridge's wire format: the proto3 JSON mapping of the same messages, both ways."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format

from kingmaker.games.registry import game_names, get_game
from kingmaker.sdk.bridge import load_game_messages, parse_reply, to_json_line
from kingmaker.sdk.codec import codec_for
from kingmaker.v1 import arena_pb2


def first_request(game_name: str, seed: int) -> arena_pb2.ServerMessage:
    """The ActionRequest the referee would send to the first seat to act in a new game."""
    game = get_game(game_name)
    state = game.new(game.spec.min_players, seed)
    seat = state.to_act()[0]
    codec = codec_for(game_name)
    request = arena_pb2.ActionRequest(
        match_id="m-1",
        request_id=2**40 + 3,  # past 2**32: uint64 travels as a JSON string
        seat=seat,
        observation=codec.pack_observation(state.observation(seat)),
        legal_actions=[codec.pack_action(action) for action in state.legal_actions(seat)],
        deadline_ms=400,
        time_bank_ms=100,
    )
    return arena_pb2.ServerMessage(action_request=request)


@pytest.mark.parametrize("game", game_names())
def test_an_action_request_round_trips_through_one_json_line(game: str) -> None:
    load_game_messages()
    message = first_request(game, seed=5)
    line = to_json_line(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1, "exactly one line per message"
    decoded = json.loads(line)
    request = decoded["actionRequest"]
    assert request["requestId"] == str(2**40 + 3)
    assert request["observation"]["@type"] == f"type.googleapis.com/kingmaker.{game}.v1.Observation"
    assert all(a["@type"].endswith(f"kingmaker.{game}.v1.Action") for a in request["legalActions"])
    assert len(request["legalActions"]) == len(message.action_request.legal_actions)
    assert json_format.Parse(line, arena_pb2.ServerMessage()) == message


def test_the_chosen_action_can_be_sent_back_as_json() -> None:
    load_game_messages()
    message = first_request("kingdoms", seed=1)
    chosen = json.loads(to_json_line(message))["actionRequest"]["legalActions"][-1]
    line = json.dumps({"matchId": "m-1", "requestId": "9", "action": chosen}).encode()
    reply = parse_reply(line)
    assert reply.request_id == 9
    assert reply.action == message.action_request.legal_actions[-1]


@pytest.mark.parametrize(
    "line",
    [
        b'{"legalActionIndex": 2}',
        b'{"legal_action_index": 2}',
        b'{"reply": {"legalActionIndex": 2}}',
    ],
)
def test_a_reply_line_may_be_an_action_reply_or_a_bot_message(line: bytes) -> None:
    reply = parse_reply(line)
    assert reply.WhichOneof("choice") == "legal_action_index"
    assert reply.legal_action_index == 2


@pytest.mark.parametrize(
    "line",
    [
        b"{not json",
        b"[1, 2]",
        b'{"legalActionIndex": "two"}',
        b'{"hello": {}}',
        b'{"unknownField": 1}',
        b"\xff",
    ],
)
def test_a_line_that_is_no_reply_is_rejected(line: bytes) -> None:
    with pytest.raises(ValueError, match=r"."):  # any explanation, but one there must be
        parse_reply(line)
