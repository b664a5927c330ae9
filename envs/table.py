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

from collections.abc import Iterator, Mapping
from typing import Any, cast

import numpy as np

from kingmaker.envs.encoding import BoundError, Numbers, layout_of, new_numbers, union_layout
from kingmaker.envs.shapes import SHAPES
from kingmaker.games.api import Action, GameState, OptionValue, Result, Seat
from kingmaker.games.registry import get_game


class IllegalAction(ValueError):
    """A slot index that holds no legal action for this seat now."""


ROWS_KEPT = 100_000
"""Encoded actions kept at most; past it they are encoded again (a long run meets new ones)."""
LEGAL_KEPT = 1024
"""Tuples of legal actions remembered at most; a tuple met twice keeps its slots' numbers too."""


class Encoder:
    """A game's arrays: fixed widths for its observations and legal actions.

    Engines hand out the same action objects, and often the same tuple of them, again and again:
    each action's numbers are kept by identity (an entry keeps its object alive, so the id stays
    its own), and a tuple met again as the same object keeps its slots' numbers as one block. A
    request's array is then its observation's numbers and a few copies of memory."""

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
        self._paddings = tuple(
            new_numbers((0.0,) * (self.action_width * missing)) for missing in range(self.slots + 1)
        )
        self._masks = tuple(
            np.array([1] * n + [0] * (self.slots - n), dtype=np.int8) for n in range(self.slots + 1)
        )
        self._action_numbers: dict[int, Numbers] = {}
        self._actions_held: list[Action] = []
        """The actions ``_action_numbers`` knows, kept alive so that their ids stay theirs."""
        self._of_value: dict[Action, Numbers] = {}
        self._legal_met: dict[int, tuple[tuple[Action, ...], bytes | None]] = {}

    def array(self, observation: Any, legal: tuple[Action, ...]) -> np.ndarray:
        # A bytearray, so the array is writable; numpy reads it in place and nothing else holds it.
        return np.frombuffer(self.buffer(observation, legal), dtype=np.float32)

    def buffer(self, observation: Any, legal: tuple[Action, ...]) -> bytearray:
        """The array's float32 numbers as bytes."""
        count = len(legal)
        if count > self.slots:
            raise BoundError(f"{count} legal actions, past the game's {self.slots} slots")
        observed = new_numbers()
        self._observation.encode(observation, observed)
        met = self._legal_met.get(id(legal))
        if met is not None and met[0] is legal:
            block = met[1]
            if block is None:  # met again: worth keeping as one block
                block = b"".join(self._slots(legal))
                self._legal_met[id(legal)] = (legal, block)
            pieces: list[Numbers | bytes] = [observed, block]
        else:
            if len(self._legal_met) >= LEGAL_KEPT:
                self._legal_met.clear()
            self._legal_met[id(legal)] = (legal, None)
            # At C speed: most are met again. A None (an action not met lately as this object) is
            # not bytes, and join says so.
            kept = cast("Iterator[Numbers]", map(self._action_numbers.get, map(id, legal)))
            try:
                return bytearray().join([observed, *kept, self._paddings[self.slots - count]])
            except TypeError:
                pieces = [observed, *self._slots(legal)]
        # One allocation of the array's size, every piece copied into it at C speed: appending
        # piece by piece to an array.array grew and moved it several times (4x slower in
        # Kingsburg, whose empty slots alone are 44 KB).
        return bytearray().join(pieces)

    def _slots(self, legal: tuple[Action, ...]) -> list[Numbers]:
        """The numbers of each slot: each action's, then zeros for the empty slots."""
        found = list(map(self._action_numbers.get, map(id, legal)))  # at C speed: most are met again
        if None in found:
            pairs = zip(legal, found, strict=True)
            slots = [self._numbers(action) if kept is None else kept for action, kept in pairs]
        else:
            slots = cast("list[Numbers]", found)
        slots.append(self._paddings[self.slots - len(legal)])
        return slots

    def _numbers(self, action: Action) -> Numbers:
        """The numbers of an action not met as this object lately: found by value, or encoded."""
        if len(self._action_numbers) >= ROWS_KEPT:
            self._action_numbers.clear()
            self._actions_held.clear()
        if len(self._of_value) >= ROWS_KEPT:
            self._of_value.clear()
        numbers = self._of_value.get(action)
        if numbers is None:
            numbers = self._of_value[action] = new_numbers()
            self._action.encode(action, numbers)
        self._action_numbers[id(action)] = numbers
        self._actions_held.append(action)
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
        # New arrays each time, as a caller may write into what it is given: an environment
        # observes a seat about once a step, so keeping them to copy would cost more.
        legal = self.legal(seat)
        encoder = self.encoder
        return {
            "observation": encoder.array(self._state.observation(seat), legal),
            "action_mask": encoder.mask(len(legal)),
        }

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
