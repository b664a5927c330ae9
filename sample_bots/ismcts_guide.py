"""What lets OpenSpiel's ISMCTS use a game's heuristic: an evaluator and a widening tree policy.

``GuidedEvaluator`` gives a new node's prior (the heuristic bot's ranking of the moves, its best
of each kind right after its best as in the search bot's candidates, halving the weight at each
rank) and judges a leaf by the search bot's rollout from it
(``SearchBot.play_out``: the heuristic plays every seat on the engine's own copy of the state).
``WideningISMCTSBot`` is OpenSpiel's ``ISMCTSBot`` with two changes: a node tries its moves in
the prior's order, a new one only once it has been visited enough (1 + sqrt(visits) moves), where
OpenSpiel's tries every legal move once, in random order, before it uses what it learned; and
worlds are drawn with the bot's own seeded random numbers (OpenSpiel's default sampler is seeded
from the system), so a search is repeatable. With ``ties_to_prior`` (for PUCT, where visits
follow the prior while the values cannot tell moves apart), the move played is the most visited
one and, of several visited alike, the prior's favourite, where OpenSpiel draws one at random.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from kingmaker.sample_bots.search_bot import guide_for, guided_search_bot


class GuidedEvaluator(mcts.Evaluator):  # type: ignore[misc]  # open_spiel has no types
    def __init__(self, game: str, seed: int) -> None:
        self._guide = guide_for(game)
        self._search = guided_search_bot(game, seed=seed)
        self._random = random.Random(seed)
        self._start: object = None
        """The stage of the decision searched (``search_from``): every rollout stops where it ends."""

    def search_from(self, state: Any) -> None:
        """Note the searched decision's stage. A leaf already past it (a Kingdoms move deeper in
        the tree that ended the epoch) is judged where it stands, not after a whole further epoch:
        its siblings' rollouts stop at the same epoch's end, and their values must be comparable."""
        self._start = self._stage_of(state.engine) if state.engine is not None else None

    def _stage_of(self, engine: Any) -> object:
        stage = self._guide.stage
        return stage(engine) if stage is not None else None

    def evaluate(self, state: Any) -> list[float]:
        engine = state.engine.clone()  # a KingmakerState's world: the rollout plays on a copy
        # (a caller that never said what it searches: the leaf's own stage)
        start = self._start if self._start is not None else self._stage_of(engine)
        pending = getattr(state, "pending", None)  # a simultaneous node taken one seat at a time
        if pending:  # (envs/turn_based.py): the seats yet to choose choose as the rollout would
            engine.apply(
                {
                    seat: engine.legal_actions(seat)[pending[seat]]
                    if seat in pending
                    else self._search.rollout(engine, seat, self._random)
                    for seat in engine.to_act()
                }
            )
        rewards = self._search.play_out(engine, self._random, start)
        return [2 * reward - 1 for reward in rewards]  # [0, 1] -> OpenSpiel's [-1, 1]

    def prior(self, state: Any) -> list[tuple[int, float]]:
        seat = state.current_player()
        legal = state.engine.legal_actions(seat)
        values = self._guide.values(state.engine.observation(seat), legal)
        ranked = sorted(range(len(legal)), key=values.__getitem__, reverse=True)
        # The best of each kind of move next after the best (Kingdoms: castle, draw, starting
        # tile), as the search bot's candidates: a tree that widens in this order asks whether
        # to draw at all, where the heuristic's top few are often all castles.
        ranked = self._search.candidates(legal, ranked, len(ranked))
        weights = [0.5**rank for rank in range(len(ranked))]
        total = sum(weights)
        return [(slot, weight / total) for slot, weight in zip(ranked, weights, strict=True)]


class _OutOfTime(Exception):
    """A search's time is up: no more simulations."""


class WideningISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]
    def __init__(self, *args: Any, ties_to_prior: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ties_to_prior = ties_to_prior
        self.set_resampler(lambda state, player: state.resample_from_infostate(player, self._draw))
        self._time_limit: float | None = None
        self._stop_at: float | None = None
        self.simulations = 0
        """How many simulations the last search ran."""

    def set_time_limit(self, seconds: float | None) -> None:
        """Stop each search once ``seconds`` of wall time have passed (None: run them all)."""
        self._time_limit = seconds

    def run_search(self, state: Any) -> Any:
        self._evaluator.search_from(state)
        self.simulations = 0
        self._stop_at = None if self._time_limit is None else time.monotonic() + self._time_limit
        try:
            return super().run_search(state)
        except _OutOfTime:  # OpenSpiel's loop left early: the policy it would have returned
            assert not self._allow_inconsistent_action_sets  # (that would filter the root first)
            return self.get_final_policy(state, self._root_node)

    def sample_root_state(self, state: Any) -> Any:
        """A world for the next simulation; out of time, none (two simulations at least: the
        first only gives the root its prior, the second visits a move)."""
        if self.simulations >= 2 and self._stop_at is not None and time.monotonic() >= self._stop_at:
            raise _OutOfTime
        self.simulations += 1
        return super().sample_root_state(state)

    def get_final_policy(self, state: Any, node: Any) -> list[tuple[int, float]]:
        if not self._ties_to_prior:
            return list(super().get_final_policy(state, node))
        most = max(child.visits for child in node.child_info.values())
        tied = [action for action, child in node.child_info.items() if child.visits == most]
        chosen = max(tied, key=lambda action: node.prior_map.get(action, 0.0))
        return [(action, 1.0 if action == chosen else 0.0) for action in state.legal_actions()]

    def _draw(self) -> float:
        return float(self._random_state.random_sample())

    def check_expand(self, node: Any, legal_actions: list[int]) -> int:
        width = min(len(legal_actions), 1 + int(math.sqrt(max(node.total_visits, 0))))
        if len(node.child_info) >= width:
            return int(pyspiel.INVALID_ACTION)
        legal = set(legal_actions)
        for action, _ in sorted(node.prior_map.items(), key=lambda item: -item[1]):
            if action in legal and action not in node.child_info:
                return int(action)
        return int(pyspiel.INVALID_ACTION)
