"""The bridge's wire format: the proto3 JSON mapping of the same messages, both ways."""

from __future__ import annotations

import json

import pytest
from google.protobuf import json_format

from kingmaker.games.registry import game_names, get_game
from kingmaker.sdk.bridge import load_game_messages, to_json_line
from kingmaker.sdk.bridge_compact import compact_line
from kingmaker.sdk.bridge_lines import read_line
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
    read = read_line(line)
    assert read.reply is not None and read.routed
    assert read.reply.request_id == 9
    assert read.reply.action == message.action_request.legal_actions[-1]


@pytest.mark.parametrize(
    "line",
    [
        b'{"legalActionIndex": 2}',
        b'{"legal_action_index": 2}',
        b'{"legalActionIndex": "2"}',
        b'  {"reply": {"legalActionIndex": 2}}',
    ],
)
def test_a_reply_line_may_be_an_action_reply_or_a_bot_message(line: bytes) -> None:
    read = read_line(line)
    assert read.reply is not None and not read.routed
    assert read.reply.WhichOneof("choice") == "legal_action_index"
    assert read.reply.legal_action_index == 2


@pytest.mark.parametrize(
    "line",
    [
        b"PHP Warning:  Undefined array key 3 in /bot/bot.php on line 12",
        b"thinking about request 7...",
        b"[1, 2]",
        b"42",
        b"\xff\xfe",
    ],
)
def test_a_line_that_does_not_open_an_object_is_the_programs_output(line: bytes) -> None:
    assert read_line(line).reply is None


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"{not json", "not valid JSON (Expecting property name enclosed in double quotes at column 2)"),
        (b'{"actionIndex": 0}', "unknown field `actionIndex`"),
        (b'{"legalActionIndex": "zero"}', '`legalActionIndex` must be a whole number from 0, got "zero"'),
        (b'{"legalActionIndex": -1}', "`legalActionIndex` must be a whole number from 0, got -1"),
        (b'{"legalActionIndex": 1, "action": {}}', "not both"),
        (b'{"requestId": "seven", "legalActionIndex": 1}', '`requestId` must be a whole number, got "seven"'),
        (b'{"matchId": "m"}', "the reply holds neither `legalActionIndex` nor `action`"),
        (b'{"action": 3}', "`action` must be an object with an `@type`"),
        (b'{"reply": 3}', "`reply` must be a JSON object"),
    ],
)
def test_a_wrong_reply_says_what_is_wrong_and_quotes_the_line(line: bytes, reason: str) -> None:
    read = read_line(line)
    assert read.reply is not None
    assert read.reply.WhichOneof("choice") == "malformed"
    assert reason in read.reply.malformed
    assert read.reply.malformed.endswith("; the line: " + line.decode())


def test_a_quote_is_at_most_200_bytes() -> None:
    line = b'{"note": "' + b"x" * 500 + b'"}'
    read = read_line(line)
    assert read.reply is not None
    quote = read.reply.malformed.split("; the line: ", 1)[1]
    assert quote == line[:200].decode() + "…"


@pytest.mark.parametrize(
    ("line", "promises", "end_seen"),
    [
        (b'{"hello": {"acknowledgesMatchEnd": true}}', True, None),
        (b'{"hello": {"acknowledges_match_end": true}}', True, None),
        (b'{"matchEndSeen": {"matchId": "m-1"}}', False, "m-1"),
        (b'{"match_end_seen": {"match_id": "m-1"}}', False, "m-1"),
        (b'{"matchEndSeen": {}}', False, ""),
    ],
)
def test_a_program_may_promise_and_give_match_end_acknowledgements(
    line: bytes, promises: bool, end_seen: str | None
) -> None:
    read = read_line(line)
    assert (read.reply, read.promises_ends, read.end_seen, read.ignored) == (None, promises, end_seen, "")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b'{"hello": {"acknowledgesMatchEnd": false}}', "holds only"),
        (b'{"hello": {"token": "secret"}}', "holds only"),
        (b'{"hello": true}', "holds only"),
        (b'{"matchEndSeen": {"matchId": 7}}', "at most a `matchId`, a string"),
        (b'{"matchEndSeen": {"requestId": "7"}}', "at most a `matchId`, a string"),
    ],
)
def test_a_wrong_word_about_match_ends_is_ignored_not_struck(line: bytes, reason: str) -> None:
    """It answers no request, so it cannot be struck as one: the bridge says why it ignores it."""
    read = read_line(line)
    assert read.reply is None and not read.promises_ends and read.end_seen is None
    assert reason in read.ignored and read.ignored.endswith("; the line: " + line.decode())


@pytest.mark.parametrize("game", game_names())
def test_the_compact_form_holds_the_same_request(game: str) -> None:
    """Each compact legal action, read with `actionKinds`, is the plain form's action; the rest of
    the request is the plain form's."""
    load_game_messages()
    message = first_request(game, seed=3)
    plain = json.loads(to_json_line(message))["actionRequest"]
    compact = json.loads(compact_line(message))["actionRequest"]
    kinds = compact.pop("actionKinds")
    assert compact.pop("actionType") == f"type.googleapis.com/kingmaker.{game}.v1.Action"
    rows = compact.pop("legalActions")
    actions = plain.pop("legalActions")
    assert compact == plain
    assert len(rows) == len(actions)
    for row, action in zip(rows, actions, strict=True):
        kind, *names = kinds[row[0]]
        fields = dict(zip(names, row[1:], strict=True))
        given = {name: value for name, value in fields.items() if value is not None}
        assert action == {"@type": f"type.googleapis.com/kingmaker.{game}.v1.Action", kind: given}


def test_the_compact_first_kingdoms_request_is_at_most_a_quarter_of_the_plain_one() -> None:
    load_game_messages()
    sizes = [
        (len(compact_line(message)), len(to_json_line(message)))
        for message in (first_request("kingdoms", seed) for seed in range(1, 6))
    ]
    assert all(compact * 4 <= plain for compact, plain in sizes), sizes
