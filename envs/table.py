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

from collections.abc import Mapping
from typing import Any

import numpy as np

from kingmaker.envs.encoding import BoundError, layout_of, new_numbers, union_layout
from kingmaker.envs.shapes import SHAPES
from kingmaker.games.api import Action, GameState, OptionValue, Result, Seat
from kingmaker.games.registry import get_game


class IllegalAction(ValueError):
    """A slot index that holds no legal action for this seat now."""


ROWS_KEPT = 100_000
"""Encoded actions kept at most; past it the table starts again (a long run meets new ones)."""


class Encoder:
    """A game's arrays: fixed widths for its observations and legal actions."""

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
        # Engines hand out the same action objects again and again: each is encoded once, into a
        # row of ``_rows``, and a request's slots are copied from there in one numpy step (turning
        # thousands of Python floats into an array was most of the cost). An entry keeps its
        # action alive, so its id is not reused while the entry stands.
        self._row_of: dict[int, tuple[Action, int]] = {}
        self._rows = np.zeros((256, self.action_width), dtype=np.float32)

    def array(self, observation: Any, legal: tuple[Action, ...]) -> np.ndarray:
        if len(legal) > self.slots:
            raise BoundError(f"{len(legal)} legal actions, past the game's {self.slots} slots")
        numbers = new_numbers()
        self._observation.encode(observation, numbers)
        array = np.empty(self.width, dtype=np.float32)
        start = self.observation_width
        array[:start] = np.frombuffer(numbers, dtype=np.float32)
        if legal:
            row_of = self._row_of
            if len(row_of) + len(legal) > ROWS_KEPT:
                row_of.clear()  # before: the rows this request finds must stay as they are
            indices = [
                entry[1]
                if (entry := row_of.get(id(action))) is not None and entry[0] is action
                else self._row(action)
                for action in legal
            ]  # before ``_rows`` is read: a new action may grow it
            end = start + len(legal) * self.action_width
            np.take(self._rows, indices, axis=0, out=array[start:end].reshape(len(legal), self.action_width))
            start = end
        array[start:] = 0.0
        return array

    def _row(self, action: Action) -> int:
        """The row of ``_rows`` that holds a newly met action, encoded now."""
        row = len(self._row_of)
        if row >= len(self._rows):
            self._rows = np.concatenate([self._rows, np.zeros_like(self._rows)])
        numbers = new_numbers()
        self._action.encode(action, numbers)
        self._rows[row] = np.frombuffer(numbers, dtype=np.float32)
        self._row_of[id(action)] = (action, row)
        return row

    def mask(self, legal_count: int) -> np.ndarray:
        mask = np.zeros(self.slots, dtype=np.int8)
        mask[:legal_count] = 1
        return mask


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
        self._seen: dict[Seat, tuple[np.ndarray, np.ndarray]] = {}
        """Each seat's arrays since the last change: an environment asks for them more than once."""
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
        self._seen = {}

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.state = self.game.new(self.players, seed, self.options)
        self.chosen = {}
        self.log = []

    def waiting(self) -> tuple[Seat, ...]:
        """The seats that must still choose in the current decision, ascending."""
        return tuple(seat for seat in self.state.to_act() if seat not in self.chosen)

    def legal(self, seat: Seat) -> tuple[Action, ...]:
        """``seat``'s legal actions, or none once it has chosen in this decision."""
        if seat in self.chosen:
            return ()
        return self.state.legal_actions(seat)

    def observe(self, seat: Seat) -> dict[str, np.ndarray]:
        seen = self._seen.get(seat)
        if seen is None:
            legal = self.legal(seat)
            seen = self._seen[seat] = (
                self.encoder.array(self.state.observation(seat), legal),
                self.encoder.mask(len(legal)),
            )
        # Copies (a microsecond): a caller may write into what it is given.
        return {"observation": seen[0].copy(), "action_mask": seen[1].copy()}

    def choose(self, seat: Seat, slot: int) -> bool:
        """Record ``seat``'s choice; once every acting seat has chosen, apply them and say True."""
        legal = self.legal(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} has no decision to take now")
        if not 0 <= slot < len(legal):
            raise IllegalAction(f"seat {seat} chose slot {slot}, but only slots 0-{len(legal) - 1} are legal")
        self.chosen[seat] = legal[slot]
        self._seen = {}
        if self.waiting():
            return False
        joint, self.chosen = self.chosen, {}
        self.state.apply(joint)
        self.log.append(joint)
        return True

    def is_over(self) -> bool:
        return self.state.is_over()

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
