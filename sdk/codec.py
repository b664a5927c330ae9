"""The one place where protobuf meets the game values; the SDK and the server both use it.

Each game's proto (``kingmaker.<game>.v1``) mirrors its dataclasses by name (see
games/README.md), so one generic mapping serves every game: a dataclass becomes the message of
the same shape, field by field; tuples are repeated fields; ``None`` is an unset field; enums
match by member name. The game's ``Action`` message holds a ``oneof`` with one field per
action class. Encoding plans are cached per (class, message) pair because the referee encodes
an observation and every legal action for each request.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import re
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from google.protobuf import any_pb2, message_factory
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from kingmaker.games.api import Action, Game, Observation, OptionValue
from kingmaker.games.registry import get_game
from kingmaker.v1 import common_pb2


class CodecError(ValueError):
    """A message that does not decode into a value of the game (a malformed bot reply)."""


PACKED_ACTIONS_KEPT = 50_000
"""Encoded actions a codec keeps: legal actions recur from request to request, so each is packed
once (a game's whole action space usually fits)."""


T = TypeVar("T")


class ByIdentity(Generic[T]):
    """What was found for the very objects seen, up to ``kept`` of them: a lookup by ``id`` that
    costs nothing however deep the object. Each object is held, so that its id stays its own;
    only immutable (hashable) values may be kept, or a change in place would go unseen."""

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._found: dict[int, tuple[Any, T]] = {}

    def get(self, value: Any) -> T | None:
        entry = self._found.get(id(value))
        return entry[1] if entry is not None and entry[0] is value else None

    def keep(self, value: Any, found: T) -> None:
        if len(self._found) >= self.kept:
            self._found.clear()
        self._found[id(value)] = (value, found)


@dataclass(frozen=True)
class GameCodec:
    """Encodes and decodes one game's observations and actions."""

    game: Game
    observation_message: type[Message]
    action_message: type[Message]
    _packed_actions: dict[Action, any_pb2.Any] = dataclasses.field(
        default_factory=dict, compare=False, repr=False
    )
    _packed_same: ByIdentity[any_pb2.Any] = dataclasses.field(
        default_factory=lambda: ByIdentity(PACKED_ACTIONS_KEPT), compare=False, repr=False
    )
    """Engines hand out the same action objects again: found without hashing them."""
    _unpacked_actions: dict[bytes, Action] = dataclasses.field(
        default_factory=dict, compare=False, repr=False
    )

    @property
    def action_type_url(self) -> str:
        return "type.googleapis.com/" + self.action_message.DESCRIPTOR.full_name

    def encode_observation(self, observation: Observation) -> Message:
        message = self.observation_message()
        _fill(message, observation)
        return message

    def decode_observation(self, message: Message) -> Observation:
        return _decode_message(message, self.game.spec.observation_type)

    def encode_action(self, action: Action) -> Message:
        message = self.action_message()
        field = _oneof_field_for(self.action_message.DESCRIPTOR, type(action).__name__)
        inner = getattr(message, field.name)
        inner.SetInParent()  # an action with no fields must still be the one chosen
        _fill(inner, action)
        return message

    def decode_action(self, message: Message) -> Action:
        chosen = message.WhichOneof("action")
        if chosen is None:
            raise CodecError("the action names no action kind")
        inner = getattr(message, chosen)
        name = inner.DESCRIPTOR.name
        for kind in self.game.spec.action_types:
            if kind.__name__ == name:
                return _decode_message(inner, kind)
        raise CodecError(f"{self.game.spec.name} has no action {name!r}")

    @property
    def observation_type_url(self) -> str:
        return "type.googleapis.com/" + self.observation_message.DESCRIPTOR.full_name

    def pack_observation(self, observation: Observation) -> any_pb2.Any:
        packed = any_pb2.Any(type_url=self.observation_type_url)
        packed.value = self.observation_bytes(observation)
        return packed

    def observation_bytes(self, observation: Observation) -> bytes:
        """The encoded observation, as ``pack_observation`` packs it: deterministic bytes, since
        the referee fingerprints exactly what it sends (``digest``)."""
        return self.encode_observation(observation).SerializeToString(deterministic=True)

    def pack_action(self, action: Action) -> any_pb2.Any:
        """The action packed for the wire; the same object for an equal action (do not change
        it: copy it into a message, as assigning it to a field does)."""
        packed = self._packed_same.get(action)
        if packed is not None:
            return packed
        packed = self._packed_actions.get(action)
        if packed is None:
            packed = _pack(self.encode_action(action))
            if len(self._packed_actions) >= PACKED_ACTIONS_KEPT:
                self._packed_actions.clear()
            self._packed_actions[action] = packed
        self._packed_same.keep(action, packed)
        return packed

    def unpack_observation(self, packed: any_pb2.Any) -> Observation:
        return self.decode_observation(_unpack(packed, self.observation_message))

    def unpack_action(self, packed: any_pb2.Any) -> Action:
        """The action inside ``packed``; ``CodecError`` if it is not a well-formed action.
        Decoded once per distinct encoding: a bot sees the same legal actions request after
        request, and decoding each anew was most of what the SDK spent per decision."""
        if packed.type_url != self.action_type_url:
            return self.decode_action(_unpack(packed, self.action_message))  # says what is wrong
        action = self._unpacked_actions.get(packed.value)
        if action is None:
            action = self.decode_action(_unpack(packed, self.action_message))
            if len(self._unpacked_actions) >= PACKED_ACTIONS_KEPT:
                self._unpacked_actions.clear()
            self._unpacked_actions[packed.value] = action
        return action


@functools.cache
def codec_for(game_name: str) -> GameCodec:
    """The codec of a registered game, found by the proto naming convention."""
    game = get_game(game_name)
    module = importlib.import_module(f"kingmaker.{game_name}.v1.{game_name}_pb2")
    return GameCodec(game, module.Observation, module.Action)


def options_to_proto(options: Mapping[str, OptionValue]) -> dict[str, common_pb2.OptionValue]:
    return {name: option_value_to_proto(value) for name, value in options.items()}


def option_value_to_proto(value: OptionValue) -> common_pb2.OptionValue:
    if isinstance(value, bool):
        return common_pb2.OptionValue(flag=value)
    if isinstance(value, int):
        return common_pb2.OptionValue(number=value)
    return common_pb2.OptionValue(text=value)


def options_from_proto(options: Mapping[str, common_pb2.OptionValue]) -> dict[str, OptionValue]:
    return {name: option_value_from_proto(value) for name, value in options.items()}


def option_value_from_proto(value: common_pb2.OptionValue) -> OptionValue:
    kind = value.WhichOneof("value")
    if kind is None:
        raise CodecError("an option value is empty")
    result: OptionValue = getattr(value, kind)
    return result


# ---- encoding -----------------------------------------------------------------------------------

Setter = Callable[[Message, Any], None]

MEMO_KEPT = 4096
"""Encoded (or decoded) sub-messages each message type (and each message field) keeps. Most of an
observation is the same from one request to the next (a board row, a player's holdings), so a part
already seen is parsed into place from its earlier encoding by protobuf's C code instead of being
rebuilt field by field."""


def _fill(message: Message, value: Any) -> None:
    kind: Any = type(value)
    for name, setter in _plan(kind, message.DESCRIPTOR):
        item = getattr(value, name)
        if item is not None:
            setter(message, item)


@functools.cache
def _plan(kind: Any, descriptor: Descriptor) -> tuple[tuple[str, Setter], ...]:
    """How to copy each field of ``kind`` into a ``descriptor`` message, worked out once."""
    if not dataclasses.is_dataclass(kind):
        raise TypeError(f"{kind.__name__} is not a dataclass")
    steps: list[tuple[str, Setter]] = []
    for field in dataclasses.fields(kind):
        target = descriptor.fields_by_name.get(field.name)
        if target is None:
            raise TypeError(f"message {descriptor.full_name} has no field {field.name!r}")
        steps.append((field.name, _setter(target)))
    return tuple(steps)


class _Encoder:
    """Builds the message of one type from a value, remembering the messages of values seen."""

    def __init__(self, descriptor: Descriptor) -> None:
        self.message_class = _message_class(descriptor)
        self.kept: dict[Any, Message] = {}
        self.same: ByIdentity[Message] = ByIdentity(MEMO_KEPT)
        """A game that hands out the same object for a part that did not change (a board row)
        has it answered without hashing it, which for nested frozen values costs as much as
        building it."""

    def __call__(self, value: Any) -> Message:
        same = self.same.get(value)
        if same is not None:
            return same
        try:
            message = self.kept[value]
        except KeyError:
            message = self._build(value)
            if len(self.kept) >= MEMO_KEPT:
                self.kept.clear()
            self.kept[value] = message
        except TypeError:  # an unhashable (so mutable) value: built each time, never kept
            return self._build(value)
        self.same.keep(value, message)
        return message

    def _build(self, value: Any) -> Message:
        message = self.message_class()
        _fill(message, value)
        return message


@functools.cache
def _encoder(descriptor: Descriptor) -> _Encoder:
    return _Encoder(descriptor)


class _Entries:
    """A message field's encoded entries (key, length, message bytes) of values seen, so that
    a part seen before is parsed into place from its bytes in protobuf's C code: cheaper than
    copying its message, which costs a Python object per nested message."""

    def __init__(self, number: int, encode: _Encoder) -> None:
        self.key = length_delimited_key(number)
        self.encode = encode
        self.kept: dict[Any, bytes] = {}
        self.same: ByIdentity[bytes] = ByIdentity(MEMO_KEPT)

    def __call__(self, value: Any) -> bytes:
        same = self.same.get(value)
        if same is not None:
            return same
        try:
            entry = self.kept[value]
        except KeyError:
            entry = self._build(value)
            if len(self.kept) >= MEMO_KEPT:
                self.kept.clear()
            self.kept[value] = entry
        except TypeError:  # an unhashable (so mutable) value: built each time, never kept
            return self._build(value)
        self.same.keep(value, entry)
        return entry

    def _build(self, value: Any) -> bytes:
        data = self.encode(value).SerializeToString()
        return self.key + varint(len(data)) + data


_LENGTH_DELIMITED = 2


def length_delimited_key(number: int) -> bytes:
    """The encoded key of a message or bytes field ``number``: what precedes each entry of it."""
    return varint(number << 3 | _LENGTH_DELIMITED)


def varint(number: int) -> bytes:
    """``number`` (not negative) as protobuf's wire format writes a length or a key."""
    out = bytearray()
    while number > 0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def _setter(field: FieldDescriptor) -> Setter:
    name = field.name
    repeated = field.is_repeated
    if field.message_type is not None:
        # Parsing a field's entry sets it as ``SetInParent`` + ``MergeFrom`` would (present even
        # when every field of the value is a default); a repeated field's entries are appended.
        entry = _Entries(field.number, _encoder(field.message_type))
        if repeated:

            def merge_all(message: Message, items: Any) -> None:
                message.MergeFromString(b"".join([entry(item) for item in items]))

            return merge_all

        def merge(message: Message, item: Any) -> None:
            message.MergeFromString(entry(item))

        return merge
    if field.enum_type is not None:
        numbers = _enum_numbers(field.enum_type)
        if repeated:
            return lambda message, items: getattr(message, name).extend(numbers[i.name] for i in items)
        return lambda message, item: setattr(message, name, numbers[item.name])
    if repeated:
        return lambda message, items: getattr(message, name).extend(items)
    return lambda message, item: setattr(message, name, item)


def _message_class(descriptor: Descriptor) -> type[Message]:
    return message_factory.GetMessageClass(descriptor)


@functools.cache
def _enum_numbers(descriptor: EnumDescriptor) -> dict[str, int]:
    """Python member name -> proto number, stripping the SCREAMING_CASE enum prefix."""
    prefix = _screaming(descriptor.name) + "_"
    return {value.name.removeprefix(prefix): value.number for value in descriptor.values}


def _screaming(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


@functools.cache
def _oneof_field_for(descriptor: Descriptor, class_name: str) -> FieldDescriptor:
    for field in descriptor.oneofs_by_name["action"].fields:
        if field.message_type is not None and field.message_type.name == class_name:
            return field
    raise TypeError(f"{descriptor.full_name} has no action message {class_name}")


def _pack(message: Message, deterministic: bool = False) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message, deterministic=deterministic)
    return packed


DIGEST_PREFIX = "p"
"""Marks a digest of the packed observation's bytes (older records hold ``serial.digest``s)."""


def digest(packed: any_pb2.Any | bytes) -> str:
    """A short stable fingerprint of a packed observation (or of its ``observation_bytes``): of
    the very bytes a seat was sent, so the referee pays for a hash, not for a second encoding."""
    value = packed if isinstance(packed, bytes) else packed.value
    return DIGEST_PREFIX + hashlib.sha256(value).hexdigest()[:16]


# ---- decoding -----------------------------------------------------------------------------------


def _unpack(packed: any_pb2.Any, message_class: type[Message]) -> Message:
    message = message_class()
    if packed.TypeName() != message_class.DESCRIPTOR.full_name:
        raise CodecError(
            f"expected a {message_class.DESCRIPTOR.full_name}, got {packed.type_url or 'nothing'}"
        )
    try:
        if not packed.Unpack(message):
            raise CodecError("the payload does not unpack")
    except Exception as error:  # a DecodeError from garbage bytes
        raise CodecError(f"the payload does not decode: {error}") from None
    return message


def _decode_message(message: Message, kind: Any) -> Any:
    return kind(**{name: read(message) for name, read in _decode_plan(kind, message.DESCRIPTOR)})


Reader = Callable[[Message], Any]


@functools.cache
def _decode_plan(kind: Any, descriptor: Descriptor) -> tuple[tuple[str, Reader], ...]:
    """How to read each field of ``kind`` from a ``descriptor`` message, worked out once."""
    hints = typing.get_type_hints(kind)
    return tuple(
        (field.name, _reader(descriptor.fields_by_name[field.name], hints[field.name]))
        for field in dataclasses.fields(kind)
    )


def _reader(field: FieldDescriptor, hint: Any) -> Reader:
    name = field.name
    inner_hint, optional = _unwrap_optional(hint)
    if field.is_repeated:
        item = _value_reader(field, typing.get_args(inner_hint)[0])
        return lambda message: tuple(item(raw) for raw in getattr(message, name))
    value = _value_reader(field, inner_hint)
    if optional and field.has_presence:
        return lambda message: value(getattr(message, name)) if message.HasField(name) else None
    return lambda message: value(getattr(message, name))


def _value_reader(field: FieldDescriptor, hint: Any) -> Callable[[Any], Any]:
    if field.message_type is not None:
        return _decoder(field.message_type, hint)
    if field.enum_type is not None:
        members = {
            number: hint[name]
            for number, name in _enum_names(field.enum_type).items()
            if name in hint.__members__
        }

        def enum_member(raw: int) -> Any:
            member = members.get(raw)
            if member is None:
                raise CodecError(f"{raw} is not a valid {hint.__name__}")
            return member

        return enum_member
    return lambda raw: raw


@functools.cache
def _decoder(descriptor: Descriptor, kind: Any) -> Callable[[Message], Any]:
    """Decodes sub-messages of one type; a frozen value already decoded from the same bytes is
    reused (values of frozen dataclasses cannot be changed by whoever receives them)."""
    if not getattr(kind, "__dataclass_params__", None) or not kind.__dataclass_params__.frozen:
        return lambda message: _decode_message(message, kind)
    kept: dict[bytes, Any] = {}

    def decode(message: Message) -> Any:
        key = message.SerializeToString(deterministic=True)
        value = kept.get(key)
        if value is None:
            value = _decode_message(message, kind)
            if len(kept) >= MEMO_KEPT:
                kept.clear()
            kept[key] = value
        return value

    return decode


@functools.cache
def _enum_names(descriptor: EnumDescriptor) -> dict[int, str]:
    return {number: name for name, number in _enum_numbers(descriptor).items()}


def _unwrap_optional(hint: Any) -> tuple[Any, bool]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return args[0], True
    return hint, False
