"""The compact JSON form of an action request, for bridged programs that opt in (``kingmaker
bridge --compact``, or ``protocol = "json-lines-compact"`` in a bot's manifest).

The plain form repeats, in every legal action, its ``@type`` and its field names; a first Kingdoms
request holds ~150 actions and is ~18 KB, slow to parse where JSON parsing is slow (Perl's
JSON::PP took 154 ms over it). The compact form says the type and each kind's field names once:

    "actionType": "type.googleapis.com/kingmaker.kingdoms.v1.Action",
    "actionKinds": [["placeCastle", "rank", "row", "column"], ["drawTile"], ...],
    "legalActions": [[0, 1, 0, 0], [0, 1, 0, 1], ..., [1]],

each legal action being its kind's index in ``actionKinds`` and then the values of the fields
named there, in that order, as the plain form writes them (a nested message is an object, a
repeated field a list, a message field that is not set ``null``). Every other field of the request
is as in the plain form; lines carry no spaces. The reply is the same: ``legalActionIndex``. Only
the bridge's lines change: the server sends gRPC bots the same bytes either way.

Read ``sdk/bridge.py`` first.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import descriptor_pool, json_format
from google.protobuf.descriptor import Descriptor

from kingmaker.v1 import arena_pb2


def compact_line(message: arena_pb2.ServerMessage) -> bytes:
    """One server message as one compact line (only an action request differs from the plain form)."""
    if message.WhichOneof("message") != "action_request":
        data = _as_dict(message)
    else:
        request = message.action_request
        bare = arena_pb2.ActionRequest()
        bare.CopyFrom(request)
        del bare.legal_actions[:]
        fields = _as_dict(bare)
        fields.pop("legalActions", None)
        fields.update(_compact_actions(request))
        data = {"actionRequest": fields}
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True).encode("ascii") + b"\n"


def _as_dict(message: Any) -> dict[str, Any]:
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)


def _compact_actions(request: arena_pb2.ActionRequest) -> dict[str, Any]:
    if not request.legal_actions:
        return {"actionType": "", "actionKinds": [], "legalActions": []}
    type_url = request.legal_actions[0].type_url
    action_type = _descriptor(type_url)
    kinds: list[list[str]] = []
    numbers: dict[str, int] = {}
    rows: list[list[Any]] = []
    for packed in request.legal_actions:
        plain = _as_dict(packed)
        kind = next(key for key in plain if key != "@type")
        number = numbers.get(kind)
        if number is None:
            number = numbers[kind] = len(kinds)
            kinds.append([kind, *_field_names(action_type, kind)])
        values = plain[kind] if isinstance(plain[kind], dict) else {}
        rows.append([number, *(values.get(name) for name in kinds[number][1:])])
    return {"actionType": type_url, "actionKinds": kinds, "legalActions": rows}


def _descriptor(type_url: str) -> Descriptor:
    name = type_url.rsplit("/", 1)[-1]
    found: Descriptor = descriptor_pool.Default().FindMessageTypeByName(name)
    return found


def _field_names(action_type: Descriptor, kind: str) -> list[str]:
    """The JSON names of the fields of the action kind ``kind`` (a member of the Action's oneof)."""
    member = next(field for field in action_type.fields if field.json_name == kind)
    if member.message_type is None:
        return []
    return [field.json_name for field in member.message_type.fields]
