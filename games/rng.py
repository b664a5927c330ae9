"""Randomness for the rules engines: seeded for matches, scripted for rulebook tests.

Every chance event in a game goes through one ``Rng`` kept in the state, so a seed plus the
actions replays a match exactly, and ``clone()`` copies the generator with the state. All
draws are built on ``randrange`` so that a ``ScriptedRng`` can force any die or draw that a
rulebook example needs.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, MutableSequence, Sequence
from typing import Protocol, TypeVar

T = TypeVar("T")


class Rng(Protocol):
    """The one source of chance a game state may use."""

    def randrange(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        ...


def roll(rng: Rng, sides: int = 6) -> int:
    """One die, 1 to ``sides``."""
    return rng.randrange(sides) + 1


def choice(rng: Rng, items: Sequence[T]) -> T:
    """One item, uniformly."""
    return items[rng.randrange(len(items))]


def shuffle(rng: Rng, items: MutableSequence[T]) -> None:
    """Fisher-Yates in place, drawing through ``randrange`` so scripts can fix the order."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.randrange(i + 1)
        items[i], items[j] = items[j], items[i]


class SeededRng:
    """A deterministic generator from an integer seed (Mersenne Twister underneath)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def randrange(self, n: int) -> int:
        if n <= 0:
            raise ValueError(f"randrange needs a positive bound, not {n}")
        return self._random.randrange(n)

    def __deepcopy__(self, memo: dict[int, object]) -> SeededRng:
        # The same generator state, copied directly: the default deepcopy walks the 625-int
        # state tuple one element at a time, ten times slower, and every clone() pays it.
        twin = SeededRng.__new__(SeededRng)
        twin._random = random.Random.__new__(random.Random)
        twin._random.setstate(self._random.getstate())
        return twin


class ScriptedRng:
    """Returns the given draws in order, for tests that must force dice and cards.

    Each scripted value is the ``randrange`` result (0-based). ``roll`` adds one, so to force a
    die showing 5 script 4 (``ScriptedRng.dice(5)`` does that for you). Running out is an error,
    so a test notices when the engine draws more than the example says.
    """

    def __init__(self, draws: Iterable[int]) -> None:
        self._draws = list(draws)
        self._next = 0

    @classmethod
    def dice(cls, *faces: int) -> ScriptedRng:
        """A script of die faces (1-6), in the order the engine rolls them."""
        return cls(face - 1 for face in faces)

    def randrange(self, n: int) -> int:
        if self._next >= len(self._draws):
            raise AssertionError("the scripted RNG ran out of draws")
        value = self._draws[self._next]
        self._next += 1
        if not 0 <= value < n:
            raise AssertionError(f"scripted draw {value} is outside [0, {n})")
        return value

    @property
    def remaining(self) -> int:
        return len(self._draws) - self._next
