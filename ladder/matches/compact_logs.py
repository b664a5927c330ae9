"""The compact form of a match log: what the three blob columns of ``matchlog`` hold.

A Kingdoms match log took 15 kB as JSON (its actions 7 kB, timings 3.7 kB, digests 3 kB), 15 GB
per million matches. Each column now holds a ``kingmaker.storage.v1`` message (read
``proto/kingmaker/storage/v1/match_log.proto`` first), serialised and deflated:

- actions: each action as the game's own ``Action`` message (the wire contract's canonical form,
  versioned with the proto), with the acting seats of each decision as a bit mask;
- timings: the ms charged per decision in hundredths (varints) and who chose it, from which the
  per-seat think times are derived rather than stored twice;
- digests: the first ``DIGEST_BYTES`` bytes of each observation's digest, packed.

``pack_*`` and ``unpack_*`` are inverses on the shapes ``ladder.match_reads.match_log`` returns
(``records.MatchOutcome`` says what they hold), exactly, except that digests are shortened:
whatever does not fit the compact fields exactly is kept as JSON text in the same message.
"""

from __future__ import annotations

import functools
import json
import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard, TypeVar

from google.protobuf import any_pb2
from google.protobuf.message import Message

from kingmaker.games import serial
from kingmaker.games.registry import UnknownGameError
from kingmaker.ladder.matches.think_times import THINK_KEY
from kingmaker.ladder.records import PackedLog
from kingmaker.sdk.codec import CodecError, GameCodec, codec_for
from kingmaker.storage.v1 import match_log_pb2 as stored

DIGEST_BYTES = 4
"""How much of each observation digest is kept. `replay --verify` recomputes every digest and
compares the part kept: a seat shown something else escapes only if 32 bits of its digest
collide (one chance in four billion per observation), and a replay that goes astray differs at
every observation after."""

DURATION_KEY = "duration_s"
DECISIONS_KEY = "decisions"
SOURCES = {
    "bot": stored.DECISION_SOURCE_BOT,
    "default": stored.DECISION_SOURCE_DEFAULT,
    "fallback": stored.DECISION_SOURCE_FALLBACK,
}
SOURCE_NAMES = {number: name for name, number in SOURCES.items()}
LARGEST_STORED = 2**62
"""Above this a duration or a time charged is kept as JSON (a uint64 holds it plus one, and it is
no real time anyway)."""
M = TypeVar("M", bound=Message)
_HEX_DIGEST = re.compile(r"([^0-9a-f]*)([0-9a-f]+)")


class CompactLogError(ValueError):
    """A stored blob that is not a compact log (damaged, or not one at all)."""


def pack_log(
    game: str,
    actions: Sequence[Mapping[str, Any]],
    digests: Sequence[Sequence[str]],
    timings: Mapping[str, Any],
) -> PackedLog:
    """A match log's three blobs, as its ``matchlog`` row holds them."""
    return PackedLog(pack_actions(game, actions), pack_digests(digests), pack_timings(timings))


# ---- actions -----------------------------------------------------------------------------------


def pack_actions(game: str, actions: Sequence[Mapping[str, Any]]) -> bytes:
    """The joint actions (``{"seat": serial.action_to_data(action)}`` per decision), packed."""
    message = _canonical_actions(game, actions)
    if message is None:
        message = stored.StoredActions(json=_json(actions))
    return _deflate(message)


def unpack_actions(game: str, blob: bytes) -> list[dict[str, Any]]:
    message = _inflate(stored.StoredActions, blob)
    if message.json:
        return list(json.loads(message.json))
    codec = codec_for(game)
    packed = iter(message.actions)
    joints: list[dict[str, Any]] = []
    try:
        for mask in message.seat_masks:
            joints.append({str(seat): _action_data(codec, next(packed)) for seat in _seats(mask)})
    except (StopIteration, CodecError) as error:
        raise CompactLogError(f"the actions do not decode: {error or 'fewer than their seats'}") from None
    if next(packed, None) is not None:
        raise CompactLogError("the actions do not decode: more than their seats")
    return joints


def _canonical_actions(game: str, actions: Sequence[Mapping[str, Any]]) -> stored.StoredActions | None:
    """The actions as the game's Action messages; None when they are not all exactly that."""
    try:
        codec = codec_for(game)
    except (UnknownGameError, ImportError):  # a game without a proto (the ladder's test game)
        return None
    masks: list[int] = []
    packed_actions: list[bytes] = []
    for joint in actions:
        seats = _seat_numbers(joint)
        if seats is None:
            return None
        masks.append(sum(1 << seat for seat in seats))
        for seat in seats:
            data = joint[str(seat)]
            key = _action_key(data)
            packed = _packed_action(codec, data) if key is None else _known_action(game, key)
            if packed is None:
                return None
            packed_actions.append(packed)
    # Given to the message at once: appending to its fields one by one cost more.
    return stored.StoredActions(seat_masks=masks, actions=packed_actions)


_SCALARS = (str, int, float, bool, type(None))


def _action_key(data: Any) -> tuple[tuple[str, type, Any], ...] | None:
    """A flat action's data as a key (each value with its type: ``True`` is not ``1``); None for
    anything else, which is packed without the cache."""
    if type(data) is not dict:
        return None
    key = tuple(sorted((name, type(value), value) for name, value in data.items()))
    return key if all(type(value) in _SCALARS for _, _, value in key) else None


@functools.lru_cache(maxsize=4096)
def _known_action(game: str, key: tuple[tuple[str, type, Any], ...]) -> bytes | None:
    """``_packed_action`` remembered: a game's actions repeat from match to match (a Kingdoms
    match of 140 decisions has about 40 different ones), and packing each is what a log costs."""
    return _packed_action(codec_for(game), {name: value for name, _, value in key})


def _packed_action(codec: GameCodec, data: Any) -> bytes | None:
    """The action's Action message, serialised; None if ``data`` is not exactly one."""
    try:
        action = serial.action_from_data(codec.game.spec, data)
    except (TypeError, ValueError):
        return None
    if serial.action_to_data(action) != data:  # fields the action does not keep
        return None
    # Not codec.pack_action: it remembers each action object it packs, and these are thrown away
    # after the write (a server would keep 50,000 of them).
    packed: bytes = codec.encode_action(action).SerializeToString(deterministic=True)
    return packed


def _action_data(codec: GameCodec, packed: bytes) -> dict[str, Any]:
    action = codec.unpack_action(any_pb2.Any(type_url=codec.action_type_url, value=packed))
    data: dict[str, Any] = serial.action_to_data(action)
    return data


# ---- timings -----------------------------------------------------------------------------------


def pack_timings(timings: Mapping[str, Any]) -> bytes:
    """A match's timings (``records.MatchOutcome.timings``), packed."""
    message = stored.StoredTimings()
    extra = dict(timings)
    duration = extra.get(DURATION_KEY)
    if _fits_scale(duration, 1000):
        message.duration_ms = round(duration * 1000)
        del extra[DURATION_KEY]
    decisions = _decision_times(extra.get(DECISIONS_KEY))
    if decisions is not None:
        masks, charged, sources = decisions
        message.decisions.seat_masks.extend(masks)
        message.decisions.charged.extend(charged)
        message.decisions.sources.extend(sources)
        del extra[DECISIONS_KEY]
        think = extra.get(THINK_KEY)
        if _float_lists(think) and think == _think_of(masks, charged, len(think)):
            message.think_seats = len(think)
            del extra[THINK_KEY]
    if extra:
        message.extra_json = _json(extra)
    return _deflate(message)


def unpack_timings(blob: bytes) -> dict[str, Any]:
    return _timings_from(_inflate(stored.StoredTimings, blob))


def unpack_think_times(blob: bytes) -> list[list[float]] | None:
    """Of packed timings, only what ``unpack_timings`` gives under ``THINK_KEY`` (None where they
    hold none), without building every decision's record: a list of matches reads only these."""
    message = _inflate(stored.StoredTimings, blob)
    _check_decisions(message.decisions)
    if message.HasField("think_seats"):
        return _think_from(message.decisions, message.think_seats)
    if message.extra_json:
        think: list[list[float]] | None = json.loads(message.extra_json).get(THINK_KEY)
        return think
    return None


def _check_decisions(times: stored.DecisionTimes) -> None:
    timed = sum(len(_seats(mask)) for mask in times.seat_masks)
    if not timed == len(times.charged) == len(times.sources):
        counts = f"{timed} timed seats, {len(times.charged)} times, {len(times.sources)} sources"
        raise CompactLogError(f"the timings do not decode: {counts}")


def _timings_from(message: stored.StoredTimings) -> dict[str, Any]:
    _check_decisions(message.decisions)
    timings: dict[str, Any] = {}
    if message.HasField("duration_ms"):
        timings[DURATION_KEY] = message.duration_ms / 1000
    if message.HasField("think_seats"):
        timings[THINK_KEY] = _think_from(message.decisions, message.think_seats)
    if message.HasField("decisions"):
        timings[DECISIONS_KEY] = _decisions_from(message.decisions)
    if message.extra_json:
        timings.update(json.loads(message.extra_json))
    return timings


def _decision_times(
    decisions: Any,
) -> tuple[list[int], list[int], list[stored.DecisionSource]] | None:
    """``[{seat: [ms charged or None, source]}]`` as the fields of a ``DecisionTimes`` (its seat
    masks, times charged and sources); None when it is not of that shape. Built as lists and
    given to the message at once: appending to its fields one by one cost twice as much."""
    if not isinstance(decisions, list):
        return None
    masks: list[int] = []
    charged: list[int] = []
    sources: list[stored.DecisionSource] = []
    for joint in decisions:
        seats = _seat_numbers(joint) if isinstance(joint, dict) else None
        if seats is None:
            return None
        masks.append(sum(1 << seat for seat in seats))
        for seat in seats:
            timing = joint[str(seat)]
            if not (isinstance(timing, list) and len(timing) == 2 and isinstance(timing[1], str)):
                return None
            ms, source = timing
            if source not in SOURCES or (ms is not None and not _fits_scale(ms, 100)):
                return None
            charged.append(0 if ms is None else round(ms * 100) + 1)
            sources.append(SOURCES[source])
    return masks, charged, sources


def _decisions_from(packed: stored.DecisionTimes) -> list[dict[str, Any]]:
    charged, sources = iter(packed.charged), iter(packed.sources)
    return [
        {str(seat): [_ms(next(charged)), SOURCE_NAMES.get(next(sources), "")] for seat in _seats(mask)}
        for mask in packed.seat_masks
    ]


def _think_from(packed: stored.DecisionTimes, seats: int) -> list[list[float]]:
    """Per seat, the ms charged for each decision its bot was asked for (``think_times``)."""
    return _think_of(packed.seat_masks, packed.charged, seats)


def _think_of(masks: Sequence[int], charged_times: Sequence[int], seats: int) -> list[list[float]]:
    think: list[list[float]] = [[] for _ in range(seats)]
    charged = iter(charged_times)
    for mask in masks:
        for seat in _seats(mask):
            ms = _ms(next(charged))
            if ms is not None and seat < seats:
                think[seat].append(ms)
    return think


def _ms(charged: int) -> float | None:
    return None if charged == 0 else (charged - 1) / 100


# ---- digests -----------------------------------------------------------------------------------


def pack_digests(digests: Sequence[Sequence[str]]) -> bytes:
    """Per seat, the digest of each observation it was shown, packed: each shortened to its
    first ``DIGEST_BYTES`` bytes (``unpack_digests`` gives them back as shortened hex)."""
    prefixes = set()
    truncated = bytearray()
    for digest in (digest for seat in digests for digest in seat):
        found = _HEX_DIGEST.fullmatch(digest) if isinstance(digest, str) else None
        if found is None or len(found[2]) < 2 * DIGEST_BYTES:
            return _deflate(stored.StoredDigests(json=_json(digests)))
        prefixes.add(found[1])
        truncated += bytes.fromhex(found[2][: 2 * DIGEST_BYTES])
    if len(prefixes) > 1:
        return _deflate(stored.StoredDigests(json=_json(digests)))
    return _deflate(
        stored.StoredDigests(
            prefix=prefixes.pop() if prefixes else "",
            counts=[len(seat) for seat in digests],
            truncated=bytes(truncated),
            digest_bytes=DIGEST_BYTES,
        )
    )


def unpack_digests(blob: bytes) -> list[list[str]]:
    message = _inflate(stored.StoredDigests, blob)
    if message.json:
        return list(json.loads(message.json))
    size, prefix, data = message.digest_bytes, message.prefix, message.truncated
    if len(data) != size * sum(message.counts):
        raise CompactLogError(f"{len(data)} bytes of digests do not make {sum(message.counts)} digests")
    digests: list[list[str]] = []
    start = 0
    for count in message.counts:
        end = start + count * size
        digests.append([prefix + data[at : at + size].hex() for at in range(start, end, size)])
        start = end
    return digests


# ---- shared ------------------------------------------------------------------------------------


def _seat_numbers(joint: Mapping[str, Any]) -> list[int] | None:
    """The seats of a joint decision, ascending; None unless every key is a seat number."""
    return _seat_numbers_of(tuple(joint))


@functools.lru_cache(maxsize=1024)
def _seat_numbers_of(keys: tuple[Any, ...]) -> list[int] | None:
    """``_seat_numbers`` by the joint's keys: every decision of a match has one of a few key sets.
    (The list returned is shared: its callers only read it.)"""
    seats = []
    for key in keys:
        if not (isinstance(key, str) and key.isdecimal() and str(int(key)) == key and int(key) < 64):
            return None
        seats.append(int(key))
    return sorted(seats)


@functools.lru_cache(maxsize=1024)
def _seats(mask: int) -> list[int]:
    """The seats of a mask, ascending. (Remembered: a match has a few masks; the list returned is
    shared, and its callers only read it.)"""
    return [seat for seat in range(mask.bit_length()) if mask >> seat & 1]


def _fits_scale(value: Any, scale: int) -> TypeGuard[float]:
    """Whether ``value`` is a float that ``round(value * scale) / scale`` gives back exactly, as
    JSON would write it (so ``-0.0`` does not): then it may be stored as that integer."""
    if type(value) is not float or not (0 <= value * scale < LARGEST_STORED):
        return False
    return repr(round(value * scale) / scale) == repr(value)


def _float_lists(value: Any) -> TypeGuard[list[list[float]]]:
    return isinstance(value, list) and all(
        isinstance(items, list) and all(type(item) is float for item in items) for items in value
    )


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _deflate(message: Message) -> bytes:
    # Raw deflate (no zlib header or checksum): six bytes a row saved, and the blob is the row's own.
    return zlib.compress(message.SerializeToString(deterministic=True), 9, wbits=-15)


def _inflate(kind: type[M], blob: bytes) -> M:
    message = kind()
    try:
        message.ParseFromString(zlib.decompress(blob, wbits=-15))
    except Exception as error:  # zlib.error, protobuf's DecodeError
        raise CompactLogError(f"not a compact {kind.__name__}: {error}") from None
    return message
