"""A simultaneous game's state one seat at a time, for OpenSpiel's sequential algorithms (its
Python ISMCTS takes no simultaneous game).

``TurnBasedState`` wraps a ``KingmakerState`` of King's Road or Kingsburg the way
``pyspiel.convert_to_turn_based`` does: at a node where several seats decide at once they decide
one after another, each choice held back until the last seat has chosen, and no seat's
information state shows another's held-back choice. Two things differ, which is why it is a
Python class and not that transform: it can be resampled (``resample_from_infostate``, by the
game's ``determinize``; the C++ transform has no resampler), and its engine is in reach of a
guided evaluator (the heuristic's prior and rollouts read ``engine`` and ``pending``). ``first``
is the seat that decides first at every simultaneous node, the others following in seat order:
a bot searching for seat s puts s first, so at its own request no one has chosen yet, and what
the others choose is searched from their own information sets, which never hold s's choice.
``get_game`` is the converted game, whose type (sequential) the algorithms check.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kingmaker.envs.openspiel import KingmakerState
from kingmaker.envs.requirements import require
from kingmaker.games.api import GameState, Seat

require("pyspiel")

import pyspiel  # noqa: E402


class TurnBasedState:
    def __init__(
        self, inner: KingmakerState, first: Seat, turn_based_game: Any, pending: dict[Seat, int] | None = None
    ) -> None:
        self.inner = inner
        self.first = first
        self.game = turn_based_game
        self.pending: dict[Seat, int] = dict(pending or {})
        """Slot chosen, per seat that has chosen at this simultaneous node; applied when all have."""

    @property
    def engine(self) -> GameState:
        """The engine at the node being decided: the held-back choices are not in it yet."""
        engine = self.inner.engine
        assert engine is not None
        return engine

    def _order(self) -> list[Seat]:
        return sorted(self.engine.to_act(), key=lambda seat: (seat != self.first, seat))

    def get_game(self) -> Any:
        return self.game

    def current_player(self) -> int:
        if self.inner.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return next(seat for seat in self._order() if seat not in self.pending)

    def legal_actions(self, player: int | None = None) -> list[int]:
        if self.inner.is_terminal():
            return []
        seat = self.current_player() if player is None else player
        return list(range(len(self.engine.legal_actions(seat))))

    def apply_action(self, action: int) -> None:
        seat = self.current_player()
        if not 0 <= action < len(self.engine.legal_actions(seat)):
            raise pyspiel.SpielError(f"seat {seat} has no slot {action}")
        self.pending[seat] = action
        acting = self.engine.to_act()
        if len(self.pending) < len(acting):
            return
        if len(acting) == 1:
            self.inner.apply_action(action)
        else:
            self.inner.apply_actions([self.pending.get(seat, 0) for seat in range(self.game.num_players())])
        self.pending = {}

    def information_state_string(self, player: int | None = None) -> str:
        seat = self.current_player() if player is None else player
        return f"seat {seat} {self.inner.recall(seat)} chose {self.pending.get(seat, '-')}"

    def is_terminal(self) -> bool:
        return bool(self.inner.is_terminal())

    def is_chance_node(self) -> bool:
        return False  # the seed is drawn before a request; every draw after it is the engine's

    def returns(self) -> list[float]:
        return list(self.inner.returns())

    def clone(self) -> TurnBasedState:
        return TurnBasedState(self.inner.clone(), self.first, self.game, self.pending)

    def resample_from_infostate(self, player: int, sampler: Callable[[], float]) -> TurnBasedState:
        """A state ``player`` cannot tell from this one: a world from the game's ``determinize``;
        ``player``'s own held-back choice kept, any other seat's drawn afresh (it never saw it)."""
        twin = self.inner.resample_from_infostate(player, sampler)
        engine = twin.engine
        assert engine is not None
        pending = {
            seat: slot if seat == player else int(sampler() * len(engine.legal_actions(seat)))
            for seat, slot in self.pending.items()
        }
        return TurnBasedState(twin, self.first, self.game, pending)

    def __str__(self) -> str:
        return f"{self.inner}\nchosen: {sorted(self.pending)}"
