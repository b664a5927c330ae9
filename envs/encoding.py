"""Game values as fixed-size vectors, read from the dataclass types: no game code of its own.

A game's observations and actions are frozen dataclasses of ints, bools, strs, enums, tuples and
optionals (the rule in ``games/api.py``). Each type compiles once into a ``Layout``: its width
and a function that appends a value's numbers to a float32 ``array.array``. An int is itself, a
bool 0 or 1, an enum one-hot over its members, a str a stable number in [0, 1) (its CRC-32 scaled:
names are labels, the facts they stand for are in other fields), ``X | None`` a presence flag and
X (zeros when absent), and ``tuple[X, ...]`` a fixed number of entries, each a presence flag and
X, padded with zeros. That number, the tuple's bound, is the one thing the types do not say: each game
declares its bounds (``shapes.py``), and a value past its bound is an error that says where.

The function is Python source written from the type and compiled once (``_compile``): the fields
of a record are read inline and their numbers appended in one ``extend`` of a tuple, and one-hots
and paddings are precomputed float32 arrays, appended by a copy of memory. An observation costs a
few calls per row of the board rather than several per number, and no number is converted twice
(a function per field, then a list of Python floats made into an array, were most of an
environment step's cost).
"""

from __future__ import annotations

import array
import dataclasses
import enum
import functools
import types
import typing
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

Numbers: TypeAlias = "array.array[float]"
"""Where encodings go: ``array.array("f")``, float32 as the arrays are, that numpy reads in place."""


def new_numbers(values: Sequence[float] = ()) -> Numbers:
    return array.array("f", values) if values else _NO_NUMBERS.__copy__()


_NO_NUMBERS: Numbers = array.array("f")
"""Copied for an empty array: five times cheaper than building one (encoders make many)."""


Encode = Callable[[Any, Numbers], None]

Piece = str | list[str]
"""Part of an encode function's body: an item of the tuple appended (an expression, or ``*`` and
an expression for several numbers), or statements (unindented lines) that append themselves."""

Emit = Callable[[str, "_Source"], list[Piece]]
"""Writes the pieces that encode the value an expression evaluates to."""


class BoundError(ValueError):
    """A tuple in a game value is longer than the bound its game declares."""


@dataclass(frozen=True)
class Layout:
    width: int
    encode: Encode
    emit: Emit


def layout_of(kind: Any, bounds: Mapping[str, int], where: str = "value") -> Layout:
    """The layout of values of type ``kind``; ``where`` names the field, for bounds and errors."""
    width, emit = _emitter(kind, bounds, where)
    return Layout(width, _compile(emit), emit)


def union_layout(kinds: Sequence[type], bounds: Mapping[str, int]) -> Layout:
    """One layout for values of any of ``kinds`` (a game's action types): which type, one-hot,
    then every type's fields side by side, zeros in all but the value's own."""
    parts = [layout_of(kind, bounds, kind.__name__) for kind in kinds]
    width = len(kinds) + sum(part.width for part in parts)
    before: dict[type, Numbers] = {}
    after: dict[type, Numbers] = {}
    inner: dict[type, Encode] = {}
    offset = len(kinds)
    for index, (kind, part) in enumerate(zip(kinds, parts, strict=True)):
        hot = tuple(1.0 if other == index else 0.0 for other in range(len(kinds)))
        before[kind] = new_numbers(hot + (0.0,) * (offset - len(kinds)))
        after[kind] = new_numbers((0.0,) * (width - offset - part.width))
        inner[kind] = part.encode
        offset += part.width

    def encode(value: Any, out: Numbers) -> None:
        kind = type(value)
        out.extend(before[kind])
        inner[kind](value, out)
        out.extend(after[kind])

    def emit(expression: str, source: _Source) -> list[Piece]:
        return [[f"{source.constant(encode)}({expression}, out)"]]

    return Layout(width, encode, emit)


class _Source:
    """An encode function being written: its fresh local names and the constants it refers to."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {}
        self._count = 0
        self.places: list[tuple[str, int]] = []
        """The index and bound of each kept tuple's loop that the code being written is inside."""

    def local(self) -> str:
        self._count += 1
        return f"x{self._count}"

    def constant(self, value: Any) -> str:
        name = f"k{len(self.names)}"
        self.names[name] = value
        return name


def _compile(emit: Emit) -> Encode:
    source = _Source()
    body = _statements(emit("value", source))
    text = "\n".join(["def encode(value, out):", "    a = out.append", "    e = out.extend", *_indent(body)])
    namespace = dict(source.names)
    exec(compile(text, "<kingmaker.envs.encoding>", "exec"), namespace)  # source we wrote, from the types
    encode: Encode = namespace["encode"]
    return encode


def _statements(pieces: list[Piece]) -> list[str]:
    """The pieces as statements: each run of items appended in one call."""
    lines: list[str] = []
    items: list[str] = []

    def append_items() -> None:
        if len(items) == 1:
            lines.append(f"a({items[0]})")
        elif items:
            lines.append(f"e(({', '.join(items)}))")
        items.clear()

    for piece in pieces:
        if isinstance(piece, str) and piece.startswith("*"):
            append_items()  # several numbers, precomputed: appended as they are, a copy of memory
            lines.append(f"e({piece[1:]})")
        elif isinstance(piece, str):
            items.append(piece)
        else:
            append_items()
            lines.extend(piece)
    append_items()
    return lines


def _indent(lines: list[str]) -> list[str]:
    return [f"    {line}" for line in lines]


def _emitter(kind: Any, bounds: Mapping[str, int], where: str) -> tuple[int, Emit]:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = [option for option in typing.get_args(kind) if option is not type(None)]
        if len(options) != 1 or len(typing.get_args(kind)) != 2:
            raise TypeError(f"{where}: only X | None unions can be encoded, not {kind}")
        return _optional(*_emitter(options[0], bounds, where))
    if origin is tuple:
        if where not in bounds:
            raise TypeError(f"{where}: a tuple with no declared bound (add it to the game's shape)")
        item = typing.get_args(kind)[0]
        memo = isinstance(item, type) and dataclasses.is_dataclass(item)
        fields = [field.name for field in dataclasses.fields(item)] if memo else []
        bounded = _bounded(*_emitter(item, bounds, where), bounds[where], where, fields)
        return _by_value(*bounded) if item in (int, bool, str) else bounded
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _record(kind, bounds)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return _one_hot(list(kind))
    if kind is bool:
        return 1, lambda expression, source: [f"(1.0 if {expression} else 0.0)"]
    if kind is int:
        return 1, lambda expression, source: [expression]
    if kind is str:
        return 1, lambda expression, source: [f"{source.constant(_label)}({expression})"]
    raise TypeError(f"{where}: cannot encode a {kind}")


@functools.cache
def _label(text: str) -> float:
    return zlib.crc32(text.encode()) / 2**32


def _one_hot(members: list[enum.Enum]) -> tuple[int, Emit]:
    # Found by the member's id: an enum's hash is a Python method, its id is not, and members
    # live as long as their class.
    rows = {id(member): new_numbers([float(other is member) for other in members]) for member in members}
    return len(members), lambda expression, source: [f"*{source.constant(rows)}[id({expression})]"]


def _optional(width: int, inner: Emit) -> tuple[int, Emit]:
    absent = new_numbers((0.0,) * (1 + width))

    def emit(expression: str, source: _Source) -> list[Piece]:
        value = source.local()
        pieces = inner(value, source)
        zeros = source.constant(absent)
        if all(isinstance(piece, str) and not piece.startswith("*") for piece in pieces):
            present = ", ".join(["1.0", *typing.cast(list[str], pieces)])
            return [f"*({zeros} if ({value} := {expression}) is None else ({present},))"]
        return [
            [
                f"{value} = {expression}",
                f"if {value} is None:",
                f"    e({zeros})",
                "else:",
                *_indent(_statements(["1.0", *pieces])),
            ]
        ]

    return 1 + width, emit


def _bounded(width: int, item: Emit, bound: int, where: str, fields: list[str]) -> tuple[int, Emit]:
    """A tuple of at most ``bound`` entries; ``fields``, the names of the entries' fields when
    they are records, whose numbers are then kept (``_memoized``)."""
    entry = 1 + width
    paddings = tuple(new_numbers((0.0,) * (entry * missing)) for missing in range(bound + 1))

    def emit(expression: str, source: _Source) -> list[Piece]:
        values, count, value, index = source.local(), source.local(), source.local(), source.local()
        past = source.constant(functools.partial(_past_bound, where, bound))
        if fields:
            place, size = index, bound  # within the enclosing kept entries' places, if any
            for outer_index, outer_bound in reversed(source.places):
                place, size = f"{outer_index} * {size} + {place}", outer_bound * size
            source.places.append((index, bound))
            entry_pieces: list[Piece] = ["1.0", *item(value, source)]
            source.places.pop()
            loop = f"for {index}, {value} in enumerate({values}):"
            body = _memoized(value, place, size, fields, entry_pieces, source)
        else:
            entry_pieces = ["1.0", *item(value, source)]
            loop, body = f"for {value} in {values}:", _statements(entry_pieces)
        return [
            [
                f"{values} = {expression}",
                f"{count} = len({values})",
                f"if {count} > {bound}:",
                f"    raise {past}({count})",
                loop,
                *_indent(body),
                f"e({source.constant(paddings)}[{bound} - {count}])",
            ]
        ]

    return bound * entry, emit


VALUES_KEPT = 4096
"""Tuples of numbers or names remembered per field at most; past it the memo starts again."""


def _by_value(width: int, inner: Emit) -> tuple[int, Emit]:
    """A tuple of ints, bools or strs, its numbers kept by value: such a tuple hashes at C speed,
    and engines build them afresh for each observation (markers, dice, castles in hand) while
    most are the same as before."""

    def emit(expression: str, source: _Source) -> list[Piece]:
        values, numbers, outer = source.local(), source.local(), source.local()
        kept = source.constant({})
        return [
            [
                f"{values} = {expression}",
                f"{numbers} = {kept}.get({values})",
                f"if {numbers} is None:",
                f"    {numbers} = {source.constant(_NO_NUMBERS.__copy__)}()",
                f"    {outer} = a, e",
                f"    a, e = {numbers}.append, {numbers}.extend",
                *_indent(_statements(inner(values, source))),
                f"    a, e = {outer}",
                f"    if len({kept}) >= {VALUES_KEPT}:",
                f"        {kept}.clear()",
                f"    {kept}[{values}] = {numbers}",
                f"e({numbers})",
            ]
        ]

    return width, emit


IDS_KEPT = 256
"""Entries of a tuple remembered by identity, per field, at most; past it the memo starts again.
Kept small: each keeps an engine object alive, and at 4,096 the objects kept made the garbage
collector's full passes long (a quarter of a 20-game run's CPU in King's Road and Kingsville when
one came); the objects met again are met again soon (docs/rl.md, "What the environments cost")."""


def _memoized(
    value: str, place: str, places: int, fields: list[str], pieces: list[Piece], source: _Source
) -> list[str]:
    """Statements that append an entry's numbers, encoded again only when the entry changed:
    boards and hands repeat the same cells and cards from one observation to the next. An entry
    is looked for as the very object last at its place in the tuple, then as equal to it (most
    views are built afresh as they were), then as an object met anywhere lately (engines hand
    out the same objects again; an entry kept keeps its value alive, so its id is not reused
    while it stands); only an entry encoded anew is remembered by id (one found equal is a
    fresh copy that no later observation holds again). Equality, not a hash: a record's hash
    walks every record inside it, while ``==`` stops at the first difference and passes over the
    objects both share. The record's own ``__eq__`` is written out inline, field by field as it
    compares them: called, it built two tuples of the fields and cost more than all the
    comparisons. A place is the entry's index
    within those of the kept entries it is inside: a castle's slots are compared with that
    castle's, not with the castle encoded just before (another seat's)."""
    last, by_id = source.constant([None] * places), source.constant({})
    numbers, outer, kept, met = source.local(), source.local(), source.local(), source.local()
    before = source.local()
    same_fields = " and ".join(f"{before}.{name} == {value}.{name}" for name in fields)
    equal = f"({before} := {kept}[0]).__class__ is {value}.__class__ and {same_fields}"
    return [
        f"{kept} = {last}[{place}]",
        f"if {kept} is not None and {kept}[0] is {value}:",
        f"    {numbers} = {kept}[1]",
        f"elif {kept} is not None and {equal}:",
        f"    {numbers} = {kept}[1]",
        f"    {last}[{place}] = ({value}, {numbers})",
        "else:",
        f"    {met} = {by_id}.get(id({value}))",
        f"    if {met} is not None and {met}[0] is {value}:",
        f"        {numbers} = {met}[1]",
        "    else:",
        f"        {numbers} = {source.constant(_NO_NUMBERS.__copy__)}()",
        f"        {outer} = a, e",  # an enclosing entry may be being memoized too
        f"        a, e = {numbers}.append, {numbers}.extend",
        *_indent(_indent(_statements(pieces))),
        f"        a, e = {outer}",
        f"        if len({by_id}) >= {IDS_KEPT}:",
        f"            {by_id}.clear()",
        f"        {by_id}[id({value})] = ({value}, {numbers})",
        f"    {last}[{place}] = ({value}, {numbers})",
        f"e({numbers})",
    ]


def _past_bound(where: str, bound: int, count: int) -> BoundError:
    return BoundError(f"{where} holds {count} entries, past its bound of {bound}")


def _record(kind: type, bounds: Mapping[str, int]) -> tuple[int, Emit]:
    hints = typing.get_type_hints(kind)
    fields = [
        (field.name, *_emitter(hints[field.name], bounds, f"{kind.__name__}.{field.name}"))
        for field in dataclasses.fields(kind)
    ]

    def emit(expression: str, source: _Source) -> list[Piece]:
        return [piece for name, _, inner in fields for piece in inner(f"{expression}.{name}", source)]

    return sum(width for _, width, _ in fields), emit
