"""Match logs packed for storage: real logs of every game read back exactly (the digests shortened
to their first bytes), a Kingdoms log fits in 3 kB, and whatever the compact fields cannot hold
(a game without a proto, odd old timings, digests that are not hex) is kept as it was."""

from __future__ import annotations

import json
import zlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ladder_support import TEST_GAME
from log_support import played_log

from kingmaker.games.api import Action
from kingmaker.games.kingdoms.actions import DrawTile
from kingmaker.games.registry import all_games
from kingmaker.ladder.matches import compact_logs
from kingmaker.ladder.matches.compact_logs import (
    DIGEST_BYTES,
    CompactLogError,
    pack_actions,
    pack_digests,
    pack_timings,
    unpack_actions,
    unpack_digests,
    unpack_think_times,
    unpack_timings,
)
from kingmaker.sdk.codec import GameCodec, codec_for
from kingmaker.storage.v1 import match_log_pb2 as stored


def same_json(a: Any, b: Any) -> bool:
    """Equal as stored JSON would be: ``1`` and ``1.0`` differ, key order does not matter."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("game", sorted(game.spec.name for game in all_games()))
@pytest.mark.parametrize("forfeit_at", [None, 5])
def test_a_real_log_of_every_game_reads_back(game: str, forfeit_at: int | None) -> None:
    spec = next(g.spec for g in all_games() if g.spec.name == game)
    log = played_log(game, spec.max_players, seed=3, forfeit_at=forfeit_at)
    assert same_json(unpack_actions(game, pack_actions(game, log.actions)), log.actions)
    assert same_json(unpack_timings(pack_timings(log.timings)), log.timings)
    assert same_json(unpack_think_times(pack_timings(log.timings)), log.timings["think_ms"])
    digests = unpack_digests(pack_digests(log.digests))
    assert digests == [[d[: 1 + 2 * DIGEST_BYTES] for d in seat] for seat in log.digests]


def test_a_kingdoms_log_fits_in_3_kb() -> None:
    """The goal of issue 27 (15 kB as JSON), for a 2-player match: ~140 decisions."""
    for seed in range(5):
        log = played_log("kingdoms", 2, seed)
        packed = pack_actions("kingdoms", log.actions) + pack_timings(log.timings) + pack_digests(log.digests)
        as_json = sum(len(json.dumps(part)) for part in (log.actions, log.timings, log.digests))
        assert len(packed) <= 3000, (seed, len(packed))
        assert len(packed) * 8 < as_json  # the point of it


def test_actions_of_a_game_without_a_proto_are_kept_as_json() -> None:
    actions = [{"0": {"type": "Roll", "dice": 2}}, {"1": {"type": "Roll", "dice": 5}}]
    assert unpack_actions(TEST_GAME, pack_actions(TEST_GAME, actions)) == actions


@pytest.mark.parametrize(
    "actions",
    [
        [{"0": {"type": "PlaceCastle", "rank": 1, "row": 0, "column": 0, "extra": 1}}],  # a field too many
        [{"0": {"type": "NoSuchAction"}}],
        [{"seat 0": {"type": "DrawTile"}}],  # not a seat number
        [{"00": {"type": "DrawTile"}}],
        [{"0": {"type": "PlaceCastle", "rank": True, "row": 0, "column": 0}}],
    ],
)
def test_actions_the_game_cannot_decode_are_kept_as_they_were(actions: list[dict[str, Any]]) -> None:
    assert unpack_actions("kingdoms", pack_actions("kingdoms", actions)) == actions


@pytest.mark.parametrize(
    "digests",
    [
        [["aa", "bb"], ["cc"]],  # too short to shorten
        [["p0123456789abcdef"], ["0123456789abcdef"]],  # two prefixes
        [["P0123456789ABCDEF"]],  # upper case hex
        [[]],
        [],
    ],
)
def test_digests_that_are_not_one_kind_of_hex_are_kept_as_they_were(digests: list[list[str]]) -> None:
    assert unpack_digests(pack_digests(digests)) == digests


def test_old_digests_of_json_values_are_shortened_too() -> None:
    digests = [["0123456789abcdef", "fedcba9876543210"], []]
    assert unpack_digests(pack_digests(digests)) == [["01234567", "fedcba98"], []]


@pytest.mark.parametrize(
    "timings",
    [
        {},
        {"duration_s": 1.5},  # the ladder tests' timings
        {"duration_s": 3},  # an int stays an int
        {"duration_s": 0.1234},  # finer than a ms
        {"duration_s": -1.0},
        {"duration_s": 2.0, "think_ms": [[1.5, 2.25], []]},  # an older log: no decisions
        {"think_ms": [[1.0]], "decisions": [{"0": [1.0, "bot"]}], "note": "kept"},
        {"think_ms": [[2.0]], "decisions": [{"0": [1.0, "bot"]}]},  # think not as the decisions say
        {"think_ms": [[1]], "decisions": [{"0": [1.0, "bot"]}]},
        {"decisions": [{"0": [1.0, "robot"]}]},  # an unknown source
        {"decisions": [{"0": [-1.0, "bot"]}]},
        {"decisions": [{"0": [0.001, "bot"]}]},
        {"decisions": [{"0": [None, "fallback"], "1": [0.0, "default"]}, {}]},
        {"decisions": [{"x": [1.0, "bot"]}]},
        {"decisions": "none"},
    ],
)
def test_timings_read_back_exactly_whatever_they_hold(timings: dict[str, Any]) -> None:
    assert same_json(unpack_timings(pack_timings(timings)), timings)
    # (a list of matches reads only the think times: the same, whichever way they were packed)
    assert same_json(unpack_think_times(pack_timings(timings)), timings.get("think_ms"))


ms = st.one_of(st.none(), st.integers(0, 10**7).map(lambda n: n / 10), st.floats(allow_nan=False))
seat_timing = st.tuples(ms, st.sampled_from(["bot", "default", "fallback", "other"])).map(list)
joint = st.dictionaries(st.integers(0, 5).map(str), seat_timing, max_size=3)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=10,
)


@given(
    duration=st.one_of(st.integers(0, 10**6).map(lambda n: n / 1000), json_value),
    decisions=st.lists(joint, max_size=8),
    think_seats=st.integers(0, 6),
    extra=st.dictionaries(st.text(), json_value, max_size=2),
)
def test_any_timings_read_back_exactly(
    duration: Any, decisions: list[dict[str, Any]], think_seats: int, extra: dict[str, Any]
) -> None:
    think: list[list[float]] = [[] for _ in range(think_seats)]
    for joint_timing in decisions:
        for seat, (value, _) in joint_timing.items():
            if value is not None and int(seat) < think_seats:
                think[int(seat)].append(value)
    timings = {**extra, "duration_s": duration, "think_ms": think, "decisions": decisions}
    assert same_json(unpack_timings(pack_timings(timings)), timings)
    assert same_json(unpack_think_times(pack_timings(timings)), think)


@pytest.mark.parametrize(
    "unpack",
    [unpack_timings, unpack_think_times, unpack_digests, lambda blob: unpack_actions("kingdoms", blob)],
)
def test_a_damaged_blob_is_refused_in_one_line(unpack: Any) -> None:
    with pytest.raises(CompactLogError) as refused:
        unpack(b"\x00\x01 not a log")
    assert len(str(refused.value).splitlines()) == 1


@pytest.mark.parametrize("actions", [0, 1, 3])
def test_packed_actions_that_do_not_match_their_seats_are_refused(actions: int) -> None:
    draw = pack_action(codec_for("kingdoms"), DrawTile())
    two_seats = stored.StoredActions(seat_masks=[0b11], actions=[draw] * actions)
    blob = zlib.compress(two_seats.SerializeToString(), wbits=-15)
    with pytest.raises(CompactLogError, match="the actions do not decode"):
        unpack_actions("kingdoms", blob)


def pack_action(codec: GameCodec, action: Action) -> bytes:
    return codec.pack_action(action).value


def test_packed_timings_that_do_not_match_their_seats_are_refused() -> None:
    times = stored.DecisionTimes(seat_masks=[0b11], charged=[5], sources=[stored.DECISION_SOURCE_BOT] * 2)
    blob = zlib.compress(stored.StoredTimings(decisions=times).SerializeToString(), wbits=-15)
    for unpack in (unpack_timings, unpack_think_times):
        with pytest.raises(
            CompactLogError, match="the timings do not decode: 2 timed seats, 1 times, 2 sources"
        ):
            unpack(blob)


@pytest.mark.parametrize("game", sorted(game.spec.name for game in all_games()))
def test_actions_packed_from_memory_are_the_actions_packed_afresh(game: str) -> None:
    """A game's actions are remembered once packed: the same bytes as packing each afresh, and a
    log packed cold or warm is the same log."""
    spec = next(g.spec for g in all_games() if g.spec.name == game)
    actions = played_log(game, spec.max_players, seed=3).actions
    compact_logs._known_action.cache_clear()
    cold = pack_actions(game, actions)
    assert pack_actions(game, actions) == cold
    codec = codec_for(game)
    for joint in actions:
        for data in joint.values():
            key = compact_logs._action_key(data)
            if key is not None:
                assert compact_logs._known_action(game, key) == compact_logs._packed_action(codec, data)


def test_an_action_key_tells_true_from_one() -> None:
    """``True == 1`` in Python: the remembered packing must not take one for the other."""
    assert compact_logs._action_key({"rank": True}) != compact_logs._action_key({"rank": 1})
    assert compact_logs._action_key({"rank": 1.0}) != compact_logs._action_key({"rank": 1})
    assert compact_logs._action_key({"cells": [1, 2]}) is None
