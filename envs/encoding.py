"""Game values as fixed-size vectors, read from the dataclass types: no game code of its own.

A game's observations and actions are frozen dataclasses of ints, bools, strs, enums, tuples and
optionals (the rule in ``games/api.py``). Each type compiles once into a ``Layout``: its width
and a function that writes a value's numbers, float32 as the arrays are. An int is itself, a
bool 0 or 1, an enum one-hot over its members, a str a stable number in [0, 1) (its CRC-32 scaled:
names are labels, the facts they stand for are in other fields), ``X | None`` a presence flag and
X (zeros when absent), and ``tuple[X, ...]`` a fixed number of entries, each a presence flag and
X, padded with zeros. That number, the tuple's bound, is the one thing the types do not say: each game
declares its bounds (``shapes.py``), and a value past its bound is an error that says where.

The function is Python source written from the type and compiled once (``_compile``). It appends
``bytes`` of float32 numbers to a list, its pieces, that the caller joins once into the array: the
fields of a record are read inline and packed in one ``struct`` call (``array.extend`` of a
tuple converted number by number through a format parser, 2.5x slower), one-hots and paddings are
precomputed bytes, and the numbers of an entry met again are the bytes kept from the first time.
No number is converted twice, and the array is written once, by the final join (growing an
``array.array`` piece by piece moved it again and again).
"""

from __future__ import annotations

import array
import dataclasses
import enum
import functools
import re
import struct
import types
import typing
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

Numbers: TypeAlias = "array.array[float]"
"""An ``array.array("f")``: where ``Layout.encode`` appends, for a value encoded on its own."""


def new_numbers(values: Sequence[float] = ()) -> Numbers:
    return array.array("f", values)


Pieces: TypeAlias = list[Any]
"""Where a write function appends: ``bytes`` (or other buffers) of float32 numbers, in order."""

Write = Callable[[Any, Pieces], None]


@dataclass(frozen=True)
class _Lookup:
    """Numbers looked up by a key (an enum's one-hot by the member's id): kept apart from other
    pieces so that constant numbers just before it (a presence flag) join its rows (``_merged``)."""

    rows: dict[int, bytes]
    key: str


Piece = str | _Lookup | list[str]
"""Part of a write function's body: a number (an expression), several numbers (``*`` and an
expression for their bytes, or a ``_Lookup``), or statements (unindented lines) that append
themselves."""

Emit = Callable[[str, "_Source"], list[Piece]]
"""Writes the pieces that encode the value an expression evaluates to."""


class BoundError(ValueError):
    """A tuple in a game value is longer than the bound its game declares."""


@dataclass(frozen=True)
class Layout:
    width: int
    write: Write
    emit: Emit

    def encode(self, value: Any, out: Numbers) -> None:
        """Append ``value``'s numbers to ``out`` (one value on its own; an ``Encoder`` joins the
        pieces of a whole request at once)."""
        pieces: Pieces = []
        self.write(value, pieces)
        out.frombytes(b"".join(pieces))


def layout_of(kind: Any, bounds: Mapping[str, int], where: str = "value") -> Layout:
    """The layout of values of type ``kind``; ``where`` names the field, for bounds and errors."""
    width, emit = _emitter(kind, bounds, where)
    return Layout(width, _compile(emit), emit)


def union_layout(kinds: Sequence[type], bounds: Mapping[str, int]) -> Layout:
    """One layout for values of any of ``kinds`` (a game's action types): which type, one-hot,
    then every type's fields side by side, zeros in all but the value's own."""
    parts = [layout_of(kind, bounds, kind.__name__) for kind in kinds]
    width = len(kinds) + sum(part.width for part in parts)
    before: dict[type, bytes] = {}
    after: dict[type, bytes] = {}
    inner: dict[type, Write] = {}
    offset = len(kinds)
    for index, (kind, part) in enumerate(zip(kinds, parts, strict=True)):
        hot = [1.0 if other == index else 0.0 for other in range(len(kinds))]
        before[kind] = _pack(hot + [0.0] * (offset - len(kinds)))
        after[kind] = _zeros(width - offset - part.width)
        inner[kind] = part.write
        offset += part.width

    def write(value: Any, pieces: Pieces) -> None:
        kind = type(value)
        pieces.append(before[kind])
        inner[kind](value, pieces)
        pieces.append(after[kind])

    def emit(expression: str, source: _Source) -> list[Piece]:
        own = source.local()  # its own list: ``p`` may be an entry's being written
        return [[f"{own} = []", f"{source.constant(write)}({expression}, {own})", f"p(b''.join({own}))"]]

    return Layout(width, write, emit)


def _pack(numbers: Sequence[float]) -> bytes:
    return struct.pack(f"{len(numbers)}f", *numbers)


def _zeros(count: int) -> bytes:
    return bytes(4 * count)


class _Source:
    """A write function being written: its fresh local names and the constants it refers to."""

    def __init__(self) -> None:
        self.names: dict[str, Any] = {}
        self._count = 0
        self._packers: dict[int, str] = {}
        self.places: list[tuple[str, int]] = []
        """The index and bound of each kept tuple's loop that the code being written is inside."""

    def local(self) -> str:
        self._count += 1
        return f"x{self._count}"

    def constant(self, value: Any) -> str:
        name = f"k{len(self.names)}"
        self.names[name] = value
        return name

    def packer(self, count: int) -> str:
        """The name of a function that packs ``count`` numbers into float32 bytes."""
        if count not in self._packers:
            self._packers[count] = self.constant(struct.Struct(f"{count}f").pack)
        return self._packers[count]


def _compile(emit: Emit) -> Write:
    source = _Source()
    body = _statements(emit("value", source), source)
    text = "\n".join(["def write(value, P):", "    p = P.append", *_indent(body)])
    namespace = dict(source.names)
    exec(compile(text, "<kingmaker.envs.encoding>", "exec"), namespace)  # source we wrote, from the types
    write: Write = namespace["write"]
    return write


_CONSTANT = re.compile(r"-?\d+\.\d+")


def _statements(pieces: list[Piece], source: _Source) -> list[str]:
    """The pieces as statements: each run of numbers packed in one call (a run of constants is
    packed once, here, or joins the rows of the lookup that follows it)."""
    lines: list[str] = []
    items: list[str] = []

    def pack_items() -> None:
        if items and all(_CONSTANT.fullmatch(item) for item in items):
            lines.append(f"p({source.constant(_pack([float(item) for item in items]))})")
        elif items:
            lines.append(f"p({source.packer(len(items))}({', '.join(items)}))")
        items.clear()

    for piece in pieces:
        if isinstance(piece, _Lookup):
            constants = len(items)
            while constants and _CONSTANT.fullmatch(items[constants - 1]):
                constants -= 1
            if constants < len(items):  # the constants just before it join its rows
                piece = _merged(_pack([float(item) for item in items[constants:]]), piece)
                del items[constants:]
            pack_items()
            lines.append(f"p({source.constant(piece.rows)}[{piece.key}])")
        elif isinstance(piece, str) and piece.startswith("*"):
            pack_items()  # several numbers, already bytes
            lines.append(f"p({piece[1:]})")
        elif isinstance(piece, str):
            items.append(piece)
        else:
            pack_items()
            lines.extend(piece)
    pack_items()
    return lines


def _merged(prefix: bytes, lookup: _Lookup) -> _Lookup:
    return _Lookup({key: prefix + row for key, row in lookup.rows.items()}, lookup.key)


def _indent(lines: list[str]) -> list[str]:
    return [f"    {line}" for line in lines]


def _own_pieces(numbers: str, pieces: list[Piece], source: _Source) -> list[str]:
    """Statements that set ``numbers`` to the bytes of ``pieces``, written into a list of their
    own (an enclosing entry may be being written too), or packed at once if all are numbers."""
    if pieces and all(isinstance(piece, str) and not piece.startswith("*") for piece in pieces):
        items = typing.cast(list[str], pieces)
        return [f"{numbers} = {source.packer(len(items))}({', '.join(items)})"]
    own, outer = source.local(), source.local()
    return [
        f"{own} = []",
        f"{outer} = p",
        f"p = {own}.append",
        *_statements(pieces, source),
        f"p = {outer}",
        f"{numbers} = b''.join({own})",
    ]


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
    rows = {id(member): _pack([float(other is member) for other in members]) for member in members}
    return len(members), lambda expression, source: [_Lookup(rows, f"id({expression})")]


def _optional(width: int, inner: Emit) -> tuple[int, Emit]:
    absent = _zeros(1 + width)

    def emit(expression: str, source: _Source) -> list[Piece]:
        value = source.local()
        pieces = inner(value, source)
        zeros = source.constant(absent)
        if all(isinstance(piece, str) and not piece.startswith("*") for piece in pieces):
            present = ", ".join(["1.0", *typing.cast(list[str], pieces)])
            packed = f"{source.packer(1 + len(pieces))}({present})"
            return [f"*({zeros} if ({value} := {expression}) is None else {packed})"]
        return [
            [
                f"{value} = {expression}",
                f"if {value} is None:",
                f"    p({zeros})",
                "else:",
                *_indent(_statements(["1.0", *pieces], source)),
            ]
        ]

    return 1 + width, emit


def _bounded(width: int, item: Emit, bound: int, where: str, fields: list[str]) -> tuple[int, Emit]:
    """A tuple of at most ``bound`` entries; ``fields``, the names of the entries' fields when
    they are records, whose numbers are then kept (``_memoized``)."""
    entry = 1 + width
    paddings = tuple(_zeros(entry * missing) for missing in range(bound + 1))

    def emit(expression: str, source: _Source) -> list[Piece]:
        values, count, value, index = source.local(), source.local(), source.local(), source.local()
        past = source.constant(functools.partial(_past_bound, where, bound))
        kept_paddings = source.constant(paddings)
        check = [
            f"{count} = len({values})",
            f"if {count} > {bound}:",
            f"    raise {past}({count})",
        ]
        # No empty padding appended for a full tuple (boards, cells, courts always are).
        padding = [f"if {count} < {bound}:", f"    p({kept_paddings}[{bound} - {count}])"]
        if fields:
            place, size = index, bound  # within the enclosing kept entries' places, if any
            for outer_index, outer_bound in reversed(source.places):
                place, size = f"{outer_index} * {size} + {place}", outer_bound * size
            source.places.append((index, bound))
            entry_pieces: list[Piece] = ["1.0", *item(value, source)]
            source.places.pop()
            lists, memoized = _memoized(value, place, size, fields, entry_pieces, source)
            # A counter, not enumerate: no pair to build and unpack per entry (5% of Kingdoms').
            loop = [
                *lists,
                f"{index} = -1",
                f"for {value} in {values}:",
                f"    {index} += 1",
                *_indent(memoized),
            ]
        else:
            loop = [f"for {value} in {values}:", *_indent(_statements(["1.0", *item(value, source)], source))]
        # An empty tuple (no face-up tiles, no enemies yet) is all padding, at once.
        return [
            [
                f"{values} = {expression}",
                f"if {values}:",
                *_indent([*check, *loop, *padding]),
                "else:",
                f"    p({kept_paddings}[{bound}])",
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
        values, numbers = source.local(), source.local()
        kept = source.constant({})
        return [
            [
                f"{values} = {expression}",
                f"{numbers} = {kept}.get({values})",
                f"if {numbers} is None:",
                *_indent(_own_pieces(numbers, inner(values, source), source)),
                f"    if len({kept}) >= {VALUES_KEPT}:",
                f"        {kept}.clear()",
                f"    {kept}[{values}] = {numbers}",
                f"p({numbers})",
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
) -> tuple[list[str], list[str]]:
    """Statements that append an entry's numbers, encoded again only when the entry changed:
    boards and hands repeat the same cells and cards from one observation to the next. An entry
    is looked for as the very object last at its place in the tuple, then as equal to it (most
    views are built afresh as they were; not once a field's entries have not been found equal
    ``EQUAL_TRIES`` times in a row), then as an object met anywhere lately (engines hand
    out the same objects again; an entry kept keeps its value alive, so its id is not reused
    while it stands); only an entry encoded anew is remembered by id (one found equal is a
    fresh copy that no later observation holds again). Equality, not a hash: a record's hash
    walks every record inside it, while ``==`` stops at the first difference and passes over the
    objects both share. The record's own ``__eq__`` is written out inline, field by field as it
    compares them: called, it built two tuples of the fields and cost more than all the
    comparisons. A place is the entry's index within those of the kept entries it is inside: a
    castle's slots are compared with that castle's, not with the castle encoded just before
    (another seat's)."""
    # The entries last at each place and their numbers, two lists (no pair to build and unpack),
    # read through locals set before the loop (no global looked up per entry).
    objects, kept = source.local(), source.local()
    lists = [
        f"{objects} = {source.constant([_NOTHING] * places)}",
        f"{kept} = {source.constant([b''] * places)}",
    ]
    by_id, tries = source.constant({}), source.constant([EQUAL_TRIES])
    numbers, met, before = source.local(), source.local(), source.local()
    at = place if place.isidentifier() else source.local()  # a place inside kept entries: reckoned once
    same_fields = " and ".join(f"{before}.{name} == {value}.{name}" for name in fields)
    equal = f"({before} := {objects}[{at}]).__class__ is {value}.__class__ and {same_fields}"
    return lists, [
        *([] if at == place else [f"{at} = {place}"]),
        f"if {objects}[{at}] is {value}:",
        f"    p({kept}[{at}])",
        f"elif {tries}[0] and {equal}:",
        f"    {tries}[0] = {EQUAL_TRIES}",
        f"    p({kept}[{at}])",
        f"    {objects}[{at}] = {value}",
        "else:",
        f"    if {tries}[0]:",
        f"        {tries}[0] -= 1",
        f"    {met} = {by_id}.get(id({value}))",
        f"    if {met} is not None and {met}[0] is {value}:",
        f"        {numbers} = {met}[1]",
        "    else:",
        *_indent(_indent(_own_pieces(numbers, pieces, source))),
        f"        if len({by_id}) >= {IDS_KEPT}:",
        f"            {by_id}.clear()",
        f"        {by_id}[id({value})] = ({value}, {numbers})",
        f"    {objects}[{at}] = {value}",
        f"    {kept}[{at}] = {numbers}",
        f"    p({numbers})",
    ]


EQUAL_TRIES = 64
"""Entries not found equal in a row, per field, after which equality is no longer tried there: an
engine that hands out the same object for the same value (cached rows, views, advisor spaces)
never hands out an equal copy, and comparing a changed entry with the last one cost a tenth of
Kingdoms' observation encoding (a cell's ``__eq__``, a Python method, at the first difference).
A field whose entries are found equal now and then keeps trying."""

_NOTHING = object()
"""At a place where no entry was yet: no entry is it, nor of its class."""


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
