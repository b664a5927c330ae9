"""What the encoders keep between requests (entries by identity, by place and equality; actions
by identity and value; blocks of slots per tuple met again) never changes an array: over random
games, with the caches warm from the examples before, each request's array equals the one a plain
encoder writes from scratch, the reference below, which keeps nothing and follows the layout's
rules in ``encoding.py`` one value at a time."""

from __future__ import annotations

import dataclasses
import enum
import random
import types
import typing
import zlib
from typing import Any

import numpy as np
from env_cases import seat_counts
from hypothesis import given, settings
from hypothesis import strategies as st

from kingmaker.envs.shapes import SHAPES
from kingmaker.envs.table import encoder_for
from kingmaker.games.registry import get_game


def reference(value: Any, kind: Any, bounds: dict[str, int], where: str) -> list[float]:
    """``value`` of type ``kind`` as numbers, written afresh."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        (inner,) = [option for option in typing.get_args(kind) if option is not type(None)]
        if value is None:
            return [0.0] * (1 + width(inner, bounds, where))
        return [1.0, *reference(value, inner, bounds, where)]
    if typing.get_origin(kind) is tuple:
        item = typing.get_args(kind)[0]
        numbers = [number for entry in value for number in [1.0, *reference(entry, item, bounds, where)]]
        return numbers + [0.0] * ((bounds[where] - len(value)) * (1 + width(item, bounds, where)))
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        return [
            number
            for field in dataclasses.fields(kind)
            for number in reference(
                getattr(value, field.name), hints[field.name], bounds, f"{kind.__name__}.{field.name}"
            )
        ]
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return [1.0 if member is value else 0.0 for member in kind]
    if kind is str:
        return [zlib.crc32(value.encode()) / 2**32]
    return [float(value)]


def width(kind: Any, bounds: dict[str, int], where: str) -> int:
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        (inner,) = [option for option in typing.get_args(kind) if option is not type(None)]
        return 1 + width(inner, bounds, where)
    if typing.get_origin(kind) is tuple:
        return bounds[where] * (1 + width(typing.get_args(kind)[0], bounds, where))
    if dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        fields = dataclasses.fields(kind)
        return sum(width(hints[field.name], bounds, f"{kind.__name__}.{field.name}") for field in fields)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return len(kind)
    return 1


def reference_array(name: str, observation: Any, legal: tuple[Any, ...]) -> np.ndarray:
    spec = get_game(name).spec
    shape = SHAPES[name]
    bounds = dict(shape.bounds)
    numbers = reference(observation, spec.observation_type, bounds, spec.observation_type.__name__)
    kinds = spec.action_types
    for action in legal:
        numbers += [1.0 if type(action) is kind else 0.0 for kind in kinds]
        for kind in kinds:
            if type(action) is kind:
                numbers += reference(action, kind, bounds, kind.__name__)
            else:
                numbers += [0.0] * width(kind, bounds, kind.__name__)
    action_width = len(kinds) + sum(width(kind, bounds, kind.__name__) for kind in kinds)
    numbers += [0.0] * ((shape.slots - len(legal)) * action_width)
    return np.array(numbers, dtype=np.float32)


@settings(max_examples=12, deadline=None)
@given(
    case=st.sampled_from(seat_counts()),
    seed=st.integers(0, 2**31 - 1),
    skipped=st.integers(0, 60),
)
def test_kept_encodings_give_a_fresh_ones_arrays(case: tuple[str, int], seed: int, skipped: int) -> None:
    name, players = case
    encoder = encoder_for(name)  # shared with every other test: its caches are warm and mixed
    state = get_game(name).new(players, seed)
    chooser = random.Random(seed)
    checked = 0
    for decision in range(skipped + 12):
        if state.is_over():
            break
        joint = {}
        for seat in state.to_act():
            legal = state.legal_actions(seat)
            if decision >= skipped:
                observation = state.observation(seat)
                expected = reference_array(name, observation, legal)
                assert np.array_equal(encoder.array(observation, legal), expected)
                assert np.array_equal(encoder.array(observation, legal), expected)  # the tuple met again
                checked += 1
            joint[seat] = chooser.choice(legal)
        state.apply(joint)
    assert checked or state.is_over()
