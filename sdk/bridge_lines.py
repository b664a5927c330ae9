"""What one line on a bridged program's stdout is: a reply, a reply that is wrong, output, or a
word about match ends (the program's promise to acknowledge them, or one acknowledgement).

The rule (docs/protocol.md, "The JSON bridge"): a line whose first character that is not blank is
``{`` is meant as a reply; any other line is the program's own output (a PHP warning, a debug
print), kept in its owner's log with a warning and never answered for. A reply that is wrong
(broken JSON, an unknown field, an index that is no whole number) is struck as malformed, with a
reason that names what is wrong and quotes the line, in the same words to everyone: the program's
owner, the server's record and the ``Error`` the bot is sent.

Two other ``BotMessage`` forms are the bridge's, not replies: ``{"hello": {"acknowledgesMatchEnd":
true}}``, the program's promise to acknowledge every match end, and ``{"matchEndSeen": {"matchId":
"..."}}`` (the id may be left out: the oldest end not yet acknowledged), one acknowledgement.

Read ``sdk/bridge.py`` first; this module only classifies and explains.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from kingmaker.v1 import arena_pb2

QUOTE_BYTES = 200
"""How much of a line a warning or a strike quotes."""

_IDS = {"matchId": "match_id", "match_id": "match_id", "requestId": "request_id", "request_id": "request_id"}
_INDEX = ("legalActionIndex", "legal_action_index")
_KNOWN = (*_IDS, *_INDEX, "action")
_FIELDS = "a reply holds `legalActionIndex` or `action`, and may name `matchId` and `requestId`"


def quoted(line: bytes) -> str:
    """The line's first ``QUOTE_BYTES`` bytes as text, marked when cut."""
    text = line.strip()
    cut = text[:QUOTE_BYTES].decode("utf-8", errors="replace")
    return cut + ("…" if len(text) > QUOTE_BYTES else "")


@dataclass(frozen=True)
class Line:
    """One line of the program's stdout, read."""

    reply: arena_pb2.ActionReply | None
    """The reply it holds (``malformed`` set when it is wrong); None when it is output."""
    routed: bool = False
    """Whether the reply names its request (``matchId`` and ``requestId``), so is routed by them."""
    promises_ends: bool = False
    """The line is the program's hello: it will acknowledge every match end."""
    end_seen: str | None = None
    """The line acknowledges the end of this match (``""``: the oldest not yet acknowledged)."""
    ignored: str = ""
    """Why a line meant for the bridge (a hello, an acknowledgement) is ignored."""


def read_line(line: bytes) -> Line:
    """Classify one line (see the module docstring)."""
    if not line.lstrip().startswith(b"{"):
        return Line(None)
    try:
        value = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        return _malformed(f"the line is not valid JSON ({_json_error(error)})", line)
    if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in _ABOUT_ENDS:
        return _about_ends(value, line)
    if isinstance(value, dict) and set(value) == {"reply"}:  # a whole BotMessage
        value = value["reply"]
        if not isinstance(value, dict):
            return _malformed("`reply` must be a JSON object", line)
    reply = arena_pb2.ActionReply()
    ids_given = _read_ids(value, reply)
    if isinstance(ids_given, str):
        return _malformed(ids_given, line)
    problem = _choice_problem(value, reply)
    if problem:
        reply.malformed = _with_quote(problem, line)
    return Line(reply, routed=ids_given)


def _read_ids(value: dict[str, Any], reply: arena_pb2.ActionReply) -> bool | str:
    """Set the reply's ids from ``value``; True if it names its request, or what is wrong."""
    unknown = [key for key in value if key not in _KNOWN]
    if unknown:
        return f"unknown field `{unknown[0]}` ({_FIELDS})"
    for key, name in _IDS.items():
        if key not in value:
            continue
        given = value[key]
        if name == "match_id":
            if not isinstance(given, str):
                return f"`{key}` must be a string, got {_shown(given)}"
            reply.match_id = given
        else:
            number = _whole_number(given)
            if number is None:
                return f"`{key}` must be a whole number, got {_shown(given)}"
            reply.request_id = number
    return bool(reply.match_id or reply.request_id)


_ABOUT_ENDS = ("hello", "matchEndSeen", "match_end_seen")
_PROMISE = ("acknowledgesMatchEnd", "acknowledges_match_end")


def _about_ends(value: dict[str, Any], line: bytes) -> Line:
    """The program's hello (its promise) or one acknowledgement; a wrong one is ignored, saying why
    (neither answers a request, so neither can be struck)."""
    kind, body = next(iter(value.items()))
    if kind == "hello":
        if isinstance(body, dict) and len(body) == 1 and any(body.get(key) is True for key in _PROMISE):
            return Line(None, promises_ends=True)
        why = 'a hello from the program holds only `"acknowledgesMatchEnd": true`'
        return Line(None, ignored=_with_quote(why, line))
    if isinstance(body, dict) and set(body) <= {"matchId", "match_id"}:
        match_id = next(iter(body.values()), "")
        if isinstance(match_id, str):
            return Line(None, end_seen=match_id)
    why = "`matchEndSeen` holds at most a `matchId`, a string"
    return Line(None, ignored=_with_quote(why, line))


def _choice_problem(value: dict[str, Any], reply: arena_pb2.ActionReply) -> str:
    """Set the reply's choice from ``value``; return what is wrong with it, or ``""``."""
    indexes = [key for key in _INDEX if key in value]
    if indexes and "action" in value:
        return "a reply holds `legalActionIndex` or `action`, not both"
    if indexes:
        key = indexes[0]
        number = _whole_number(value[key])
        if number is None or number >= 2**32:
            return f"`{key}` must be a whole number from 0, got {_shown(value[key])}"
        reply.legal_action_index = number
        return ""
    if "action" in value:
        action = value["action"]
        if not isinstance(action, dict) or not isinstance(action.get("@type"), str):
            shown = _shown(action)
            return f"`action` must be an object with an `@type`, copied from `legalActions`; got {shown}"
        try:
            json_format.ParseDict(action, reply.action)
        except json_format.ParseError as error:
            return f"`action` does not decode: {str(error).splitlines()[0]}"
        return ""
    return f"the reply holds neither `legalActionIndex` nor `action` ({_FIELDS})"


def _whole_number(value: Any) -> int | None:
    """An integer, as JSON gives it or as a string of digits (the proto3 JSON form of a uint64)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:60] + "…"


def _json_error(error: ValueError) -> str:
    if isinstance(error, json.JSONDecodeError):
        return f"{error.msg} at column {error.colno}"
    return "it is not UTF-8"


def _with_quote(problem: str, line: bytes) -> str:
    return f"{problem}; the line: {quoted(line)}"


def _malformed(problem: str, line: bytes) -> Line:
    return Line(arena_pb2.ActionReply(malformed=_with_quote(problem, line)))
