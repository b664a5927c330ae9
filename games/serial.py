"""Game values as plain JSON data: for match logs, replays and observation digests.

Works on any action or observation that follows the rule in ``api.py`` (frozen dataclasses of
ints, strs, bools, enums, tuples and optionals), by reading the dataclass type hints, so a game
needs no code of its own here.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
import types
import typing
from typing import Any

from kingmaker.games.api import Action, GameSpec

JSON = Any


def to_data(value: Any) -> JSON:
    """A JSON-ready form of a game value: dataclasses become dicts, enums their names."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, tuple | list):
        return [to_data(item) for item in value]
    if value is None or isinstance(value, bool | int | str | float):
        return value
    raise TypeError(f"{type(value).__name__} is not a game value")


def from_data(kind: Any, data: JSON) -> Any:
    """The inverse of ``to_data``, guided by the expected type ``kind``."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if data is None and type(None) in options:
            return None
        concrete = [option for option in options if option is not type(None)]
        if len(concrete) != 1:
            raise TypeError(f"cannot decode into the union {kind}")
        return from_data(concrete[0], data)
    if origin is tuple:
        item_kind = typing.get_args(kind)[0]
        return tuple(from_data(item_kind, item) for item in _expect(list, data, kind))
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        fields = _expect(dict, data, kind)
        hints = _hints(kind)
        unknown = set(fields) - set(hints)
        if unknown:
            raise ValueError(f"{kind.__name__} has no field {sorted(unknown)[0]!r}")
        return kind(**{name: from_data(hints[name], fields[name]) for name in fields})
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        try:
            return kind[_expect(str, data, kind)]
        except KeyError:
            raise ValueError(f"{data!r} is not a {kind.__name__}") from None
    if kind is bool:
        return _expect(bool, data, kind)
    if kind is int:
        if isinstance(data, bool):
            raise ValueError(f"expected an int, got {data!r}")
        return _expect(int, data, kind)
    if kind is str:
        return _expect(str, data, kind)
    raise TypeError(f"cannot decode into {kind!r}")


def action_to_data(action: Action) -> JSON:
    """An action as ``{"type": ClassName, **fields}``."""
    return {"type": type(action).__name__, **to_data(action)}


def action_from_data(spec: GameSpec, data: JSON) -> Action:
    """The action ``action_to_data`` wrote, checked against the game's action types."""
    fields = dict(_expect(dict, data, "action"))
    name = fields.pop("type", None)
    for kind in spec.action_types:
        if kind.__name__ == name:
            return from_data(kind, fields)
    raise ValueError(f"{spec.name} has no action type {name!r}")


def digest(value: Any) -> str:
    """A short stable fingerprint of a game value (for the per-seat observation digests)."""
    text = json.dumps(to_data(value), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)


def _expect(python_type: type, data: JSON, kind: Any) -> Any:
    if not isinstance(data, python_type):
        name = getattr(kind, "__name__", str(kind))
        raise ValueError(f"expected {python_type.__name__} for {name}, got {data!r}")
    return data
