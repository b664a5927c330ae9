"""A game in play as the environments see it: arrays for each seat, actions as slot indices.

The one place where the environments touch the engine. A seat's observation array is its
observation from the engine followed by its legal actions, one per slot, each encoded by the
game's action layout (``encoding.py``), so a policy can tell what slot ``i`` would do; the mask
marks the slots that hold a legal action. Both come from ``observation(seat)`` and
``legal_actions(seat)`` only, as the referee's request does: nothing else of the state.

Choices are collected seat by seat and applied as one joint action once every acting seat has
chosen, so in a simultaneous decision no seat's choice shows before all have chosen.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeAlias

import numpy as np

from kingmaker.envs.encoding import BoundError, Pieces, layout_of, union_layout
from kingmaker.envs.shapes import SHAPES
from kingmaker.games.api import Action, GameState, OptionValue, Result, Seat
from kingmaker.games.registry import get_game


class IllegalAction(ValueError):
    """A slot index that holds no legal action for this seat now."""


ROWS_KEPT = 100_000
"""Encoded actions kept at most; past it they are encoded again (a long run meets new ones)."""
LEGAL_KEPT = 1024
"""Tuples of legal actions remembered at most; a tuple met twice keeps its slots' numbers too."""
LEGAL_TRIES = 256
"""Requests in a row with no tuple met again, after which tuples are no longer remembered: some
engines hand out a new tuple every time (Kingdoms), and remembering cost them 1-2% of a step."""

_frombuffer = np.frombuffer
_FLOAT32 = np.dtype(np.float32)
"""Given as a dtype, not a type, and not by keyword: numpy then takes 0.25 µs, not 0.9."""


_Kept: TypeAlias = tuple[Action, bytes]


def _value_key(kind: type) -> Callable[[Action], Hashable]:
    """What tells two actions of type ``kind`` apart, as dataclass equality does: their fields
    (the type itself for a type with none)."""
    names = [field.name for field in dataclasses.fields(kind)]
    return operator.attrgetter(*names) if names else type


class Encoder:
    """A game's arrays: fixed widths for its observations and legal actions.

    Engines hand out the same action objects, and often the same tuple of them, again and again:
    each action's numbers are kept by identity (an entry keeps its object alive, so the id stays
    its own), and a tuple met again as the same object keeps its slots' numbers as one block. A
    request's array is then its observation's numbers and a few copies of memory. Other engines
    build their actions afresh: those are found by value, by a key of their fields read at C
    speed (a dataclass's ``__hash__`` and ``__eq__`` are Python methods), and only the first
    object of each value is kept by identity (the others are not met again)."""

    def __init__(self, game_name: str) -> None:
        game = get_game(game_name)
        shape = SHAPES[game_name]
        spec = game.spec
        self.slots = shape.slots
        self._observation = layout_of(spec.observation_type, shape.bounds, spec.observation_type.__name__)
        self._action = union_layout(spec.action_types, shape.bounds)
        self.observation_width = self._observation.width
        self.action_width = self._action.width
        self.width = self.observation_width + self.slots * self.action_width
        self.nbytes = 4 * self.width
        self._write_observation = self._observation.write
        self._masks = tuple(
            np.array([1] * n + [0] * (self.slots - n), dtype=np.int8) for n in range(self.slots + 1)
        )
        self._action_numbers: dict[int, bytes] = {}
        """By id, the actions ``_of_value`` keeps alive (so that their ids stay theirs)."""
        self._of_value: dict[type, tuple[Callable[[Action], Hashable], dict[Hashable, _Kept]]] = {
            kind: (_value_key(kind), {}) for kind in spec.action_types
        }
        """Per action type, its key and the actions met, by key (an action and its numbers)."""
        self._values = 0
        self._legal_met: dict[int, tuple[Action, ...]] = {}
        """Tuples of legal actions met lately, by id (kept alive so that their ids stay theirs)."""
        self._blocks: dict[int, bytes] = {}
        """The slots' numbers of the tuples in ``_legal_met`` met more than once, in one block."""
        self._legal_tries = LEGAL_TRIES

    def array(self, observation: Any, legal: tuple[Action, ...]) -> np.ndarray:
        # Widened with zeros by ljust, which writes them (memset) rather than copying them from a
        # block of zeros, tens of KB read a request. A bytearray, so the array is writable; numpy
        # reads it in place and nothing else holds it.
        return _frombuffer(self.head(observation, legal).ljust(self.nbytes, b"\0"), _FLOAT32)

    def arrays(self, observation: Any, legal: tuple[Action, ...]) -> dict[str, np.ndarray]:
        """The observation array and the action mask, as an environment hands them out: new
        arrays each time, as a caller may write into what it is given."""
        return {"observation": self.array(observation, legal), "action_mask": self.mask(len(legal))}

    def head(self, observation: Any, legal: tuple[Action, ...]) -> bytearray:
        """The array's leading float32 numbers as bytes: the observation's, then each legal
        action's. The rest of the array, the empty slots, is zeros."""
        if len(legal) > self.slots:
            raise BoundError(f"{len(legal)} legal actions, past the game's {self.slots} slots")
        pieces: Pieces = []
        self._write_observation(observation, pieces)
        if self._legal_tries and self._legal_met.get(id(legal)) is legal:
            self._legal_tries = LEGAL_TRIES
            block = self._blocks.get(id(legal))
            if block is None:  # met again: worth keeping as one block
                found = [*map(self._action_numbers.get, map(id, legal))]
                block = self._blocks[id(legal)] = b"".join(self._slots(legal, found))
            pieces.append(block)
        else:
            if self._legal_tries:
                self._legal_tries -= 1
                if len(self._legal_met) >= LEGAL_KEPT or not self._legal_tries:
                    self._legal_met.clear()
                    self._blocks.clear()
                if self._legal_tries:
                    self._legal_met[id(legal)] = legal
            # At C speed: most actions are met again as the same objects. A None is one that was
            # not (numbers are never empty, so ``all`` finds it without comparing).
            found = [*map(self._action_numbers.get, map(id, legal))]
            pieces += found if all(found) else self._slots(legal, found)
        # One allocation, every piece copied into it once, at C speed.
        return bytearray().join(pieces)

    def _slots(self, legal: tuple[Action, ...], found: list[bytes | None]) -> list[bytes]:
        """The numbers of each legal action, in order, given those ``found`` by identity."""
        numbers = self._numbers
        return [numbers(action) if kept is None else kept for action, kept in zip(legal, found, strict=True)]

    def _numbers(self, action: Action) -> bytes:
        """The numbers of an action not met as this object lately: found by value, or encoded."""
        key, kept = self._of_value[type(action)]
        value = key(action)
        found = kept.get(value)
        if found is not None:
            return found[1]
        if self._values >= ROWS_KEPT:
            self._values = 0
            self._action_numbers.clear()
            for _, values in self._of_value.values():
                values.clear()
        pieces: Pieces = []
        self._action.write(action, pieces)
        numbers = b"".join(pieces)
        kept[value] = (action, numbers)
        self._action_numbers[id(action)] = numbers
        self._values += 1
        return numbers

    def mask(self, legal_count: int) -> np.ndarray:
        return self._masks[legal_count].copy()


class Table:
    """One game of ``game_name`` for ``players`` seats, driven one seat's choice at a time."""

    def __init__(
        self, game_name: str, players: int, options: Mapping[str, OptionValue] | None = None
    ) -> None:
        self.game_name = game_name
        self.game = get_game(game_name)
        self.options = self.game.resolve_options(options or {})
        if not self.game.spec.min_players <= players <= self.game.spec.max_players:
            spec = self.game.spec
            raise ValueError(
                f"{game_name} is for {spec.min_players} to {spec.max_players} players, not {players}"
            )
        self.players = players
        self.encoder = encoder_for(game_name)
        self._legal: dict[Seat, tuple[Action, ...]] = {}
        """Each seat's legal actions since the last change: an environment asks for them more
        than once (to observe, then to choose), and the engine may compute them afresh each time."""
        self._acting: tuple[Seat, ...] = ()
        """Who acts since the last change: asked at each choice and after it."""
        self.state = self.game.new(players, 0, self.options)
        self.seed = 0
        self.chosen: dict[Seat, Action] = {}
        self.log: list[dict[Seat, Action]] = []

    @property
    def state(self) -> GameState:
        return self._state

    @state.setter
    def state(self, state: GameState) -> None:
        self._state = state
        self._legal = {}
        self._acting = state.to_act()

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.state = self.game.new(self.players, seed, self.options)
        self.chosen = {}
        self.log = []

    def waiting(self) -> tuple[Seat, ...]:
        """The seats that must still choose in the current decision, ascending."""
        acting = self._acting
        return tuple(seat for seat in acting if seat not in self.chosen) if self.chosen else acting

    def legal(self, seat: Seat) -> tuple[Action, ...]:
        """``seat``'s legal actions, or none once it has chosen in this decision."""
        if seat in self.chosen:
            return ()
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = self._state.legal_actions(seat)
        return legal

    def observe(self, seat: Seat) -> dict[str, np.ndarray]:
        # New arrays each time (``Encoder.arrays``): an environment observes a seat about once a
        # step, so keeping them to copy would cost more.
        legal = self.legal(seat)
        return self.encoder.arrays(self._state.observation(seat), legal)

    def choose(self, seat: Seat, slot: int) -> bool:
        """Record ``seat``'s choice; once every acting seat has chosen, apply them and say True."""
        legal = self.legal(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} has no decision to take now")
        if not 0 <= slot < len(legal):
            raise IllegalAction(f"seat {seat} chose slot {slot}, but only slots 0-{len(legal) - 1} are legal")
        chosen = self.chosen
        chosen[seat] = legal[slot]
        if len(chosen) < len(self._acting):  # only acting seats have legal actions to choose
            return False
        self.chosen = {}
        state = self._state
        state.apply(chosen)
        self._legal = {}
        self._acting = state.to_act()
        self.log.append(chosen)
        return True

    def is_over(self) -> bool:
        return self._state.is_over()  # not through ``state``: asked at every step

    def result(self) -> Result:
        return self.state.result()

    def rewards(self) -> list[float]:
        """Each seat's pairwise score at the end, in [-1, 1]: seats it beat less seats that beat
        it, over the others (zero-sum; 0 for everyone before the end)."""
        if not self.state.is_over():
            return [0.0] * self.players
        return pairwise_rewards(self.state.result().ranks)

    def board_text(self) -> str:
        """The board as a spectator sees it: no seat's secrets."""
        from kingmaker.envs.text import value_text

        spectate = self.game.spectate
        view = spectate(self.state) if spectate is not None else self.state.observation(0)
        return value_text(view)


def pairwise_rewards(ranks: tuple[int, ...]) -> list[float]:
    others = len(ranks) - 1
    return [sum((mine < theirs) - (mine > theirs) for theirs in ranks) / others for mine in ranks]


_ENCODERS: dict[str, Encoder] = {}


def encoder_for(game_name: str) -> Encoder:
    """The game's encoder, built once per process (the layouts are compiled from the types)."""
    if game_name not in _ENCODERS:
        _ENCODERS[game_name] = Encoder(game_name)
    return _ENCODERS[game_name]
