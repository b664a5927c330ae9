"""Game values as fixed-size vectors, read from the dataclass types: no game code of its own.

A game's observations and actions are frozen dataclasses of ints, bools, strs, enums, tuples and
optionals (the rule in ``games/api.py``). Each type compiles once into a ``Layout``: its width
and a function that appends a value's numbers to a list. An int is itself, a bool 0 or 1, an
enum one-hot over its members, a str a stable number in [0, 1) (its CRC-32 scaled: names are
labels, the facts they stand for are in other fields), ``X | None`` a presence flag and X (zeros
when absent), and ``tuple[X, ...]`` a fixed number of entries, each a presence flag and X, padded
with zeros. That number, the tuple's bound, is the one thing the types do not say: each game
declares its bounds (``shapes.py``), and a value past its bound is an error that says where.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Encode = Callable[[Any, list[float]], None]


class BoundError(ValueError):
    """A tuple in a game value is longer than the bound its game declares."""


@dataclass(frozen=True)
class Layout:
    width: int
    encode: Encode


def layout_of(kind: Any, bounds: Mapping[str, int], where: str = "value") -> Layout:
    """The layout of values of type ``kind``; ``where`` names the field, for bounds and errors."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = [option for option in typing.get_args(kind) if option is not type(None)]
        if len(options) != 1 or len(typing.get_args(kind)) != 2:
            raise TypeError(f"{where}: only X | None unions can be encoded, not {kind}")
        return _optional(layout_of(options[0], bounds, where))
    if origin is tuple:
        if where not in bounds:
            raise TypeError(f"{where}: a tuple with no declared bound (add it to the game's shape)")
        return _bounded(layout_of(typing.get_args(kind)[0], bounds, where), bounds[where], where)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _record(kind, bounds)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return _one_hot(list(kind))
    if kind is bool:
        return Layout(1, _append_bool)
    if kind is int:
        return Layout(1, _append_int)
    if kind is str:
        return Layout(1, _append_str)
    raise TypeError(f"{where}: cannot encode a {kind}")


def union_layout(kinds: Sequence[type], bounds: Mapping[str, int]) -> Layout:
    """One layout for values of any of ``kinds`` (a game's action types): which type, one-hot,
    then every type's fields side by side, zeros in all but the value's own."""
    parts = [layout_of(kind, bounds, kind.__name__) for kind in kinds]
    width = len(kinds) + sum(part.width for part in parts)
    before: dict[type, tuple[float, ...]] = {}
    after: dict[type, tuple[float, ...]] = {}
    inner: dict[type, Encode] = {}
    offset = len(kinds)
    for index, (kind, part) in enumerate(zip(kinds, parts, strict=True)):
        hot = tuple(1.0 if other == index else 0.0 for other in range(len(kinds)))
        before[kind] = hot + (0.0,) * (offset - len(kinds))
        after[kind] = (0.0,) * (width - offset - part.width)
        inner[kind] = part.encode
        offset += part.width

    def encode(value: Any, out: list[float]) -> None:
        kind = type(value)
        out.extend(before[kind])
        inner[kind](value, out)
        out.extend(after[kind])

    return Layout(width, encode)


def _append_bool(value: Any, out: list[float]) -> None:
    out.append(1.0 if value else 0.0)


def _append_int(value: Any, out: list[float]) -> None:
    out.append(float(value))


def _append_str(value: Any, out: list[float]) -> None:
    out.append(zlib.crc32(value.encode()) / 2**32)


def _one_hot(members: list[enum.Enum]) -> Layout:
    rows = {member: tuple(1.0 if other is member else 0.0 for other in members) for member in members}

    def encode(value: Any, out: list[float]) -> None:
        out.extend(rows[value])

    return Layout(len(members), encode)


def _optional(inner: Layout) -> Layout:
    absent = (0.0,) * (1 + inner.width)
    encode_inner = inner.encode

    def encode(value: Any, out: list[float]) -> None:
        if value is None:
            out.extend(absent)
        else:
            out.append(1.0)
            encode_inner(value, out)

    return Layout(1 + inner.width, encode)


def _bounded(item: Layout, bound: int, where: str) -> Layout:
    entry = 1 + item.width
    encode_item = item.encode

    def encode(value: Any, out: list[float]) -> None:
        if len(value) > bound:
            raise BoundError(f"{where} holds {len(value)} entries, past its bound of {bound}")
        for element in value:
            out.append(1.0)
            encode_item(element, out)
        out.extend((0.0,) * (entry * (bound - len(value))))

    return Layout(bound * entry, encode)


def _record(kind: type, bounds: Mapping[str, int]) -> Layout:
    hints = typing.get_type_hints(kind)
    fields = [
        (field.name, layout_of(hints[field.name], bounds, f"{kind.__name__}.{field.name}"))
        for field in dataclasses.fields(kind)
    ]
    getters = [(name, part.encode) for name, part in fields]

    def encode(value: Any, out: list[float]) -> None:
        for name, encode_field in getters:
            encode_field(getattr(value, name), out)

    return Layout(sum(part.width for _, part in fields), encode)
