"""The search bot for every game: the SDK's search, guided by the game's sample heuristic bot.

``SearchBot`` from ``kingmaker.sdk.search`` with the heuristic's valuation as its guide (the
candidate moves, the choice it keeps unless search proves another better) and as its rollout
policy (every seat, 5% random), so each decision asks "which of the heuristic's best moves does
best if everyone then plays like the heuristic?". That is what makes it beat the heuristic bot:
random rollouts judge a move by how it fares among random players, which the heuristic is not.
In Kingdoms the rollouts play to the end of the epoch, scored by the engine itself; the
candidates include the greedy bot's best move of each kind (castle, draw, starting tile), since
its best four are often four castles and the choice that matters is whether to place one now;
and the halving rounds share the budget evenly.

Run it against a server: ``python -m kingmaker.sample_bots.search_bot GAME [--iterations N]``
with ``KINGMAKER_SERVER`` and ``KINGMAKER_TOKEN`` set; without ``--iterations`` it thinks for a
share of each decision's deadline and of its time bank.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kingmaker.games.api import Action, GameState
from kingmaker.sdk.search import (
    ActionValues,
    Budget,
    Evaluation,
    SearchBot,
    Stage,
    guided_rollout,
    margin_evaluation,
)


@dataclass(frozen=True)
class Guide:
    """How one game's heuristic guides the search."""

    values: ActionValues
    noise: float = 0.0
    """Random worth added in rollouts, where the heuristic bot adds its own noise."""
    horizon: int | None = None
    """Where the heuristic is slow, rollouts stop after this many decisions, or ..."""
    stage: Stage | None = None
    """... where this changes (the end of an epoch), and ..."""
    evaluate: Evaluation | None = None
    """... this judges the state they reach."""
    width: int = 6
    """Candidate moves: the heuristic's best this many."""
    caution: float = 1.0
    """Standard errors of lead a candidate needs over the heuristic's choice."""
    epsilon: float = 0.05
    """Share of random moves in rollouts."""
    kind: Callable[[Action], object] | None = None
    """Candidates include the heuristic's best action of each kind (see ``SearchBot.kind``)."""
    even_rounds: bool = False
    """Halving rounds share the budget evenly (see ``SearchBot.even_rounds``)."""


def guide_for(game: str) -> Guide:
    """The sample heuristic bot's valuation for ``game``; ``KeyError`` for a game without one."""
    if game == "kingsburg":
        from kingmaker.sample_bots.kingsburg.heuristic_bot import HeuristicBot

        return Guide(HeuristicBot().values)
    if game == "kingsville":
        from kingmaker.sample_bots.kingsville.greedy_bot import GreedyBot as KingsvilleGreedy

        return Guide(KingsvilleGreedy().values)
    if game == "kingdoms":
        from kingmaker.sample_bots.kingdoms.greedy_bot import GreedyBot as KingdomsGreedy

        return Guide(
            KingdomsGreedy().values,
            stage=kingdoms_epoch,
            evaluate=kingdoms_evaluation,
            width=KINGDOMS_WIDTH,
            kind=type,
            even_rounds=True,
        )
    if game == "kings_road":
        from kingmaker.sample_bots.kings_road.greedy_bot import NOISE
        from kingmaker.sample_bots.kings_road.greedy_bot import GreedyBot as KingsRoadGreedy

        return Guide(
            KingsRoadGreedy().values, noise=NOISE, horizon=KINGS_ROAD_HORIZON, evaluate=kings_road_evaluation
        )
    raise KeyError(game)


KINGDOMS_WIDTH = 4
"""Candidate moves in Kingdoms: four (the greedy bot's best of each kind among them), halved to
two once half the budget is spent."""
KINGDOMS_SCALE = 25.0
"""Gold of lead that counts as a fairly safe win (tanh of 1): two-seat games end ~50 gold apart."""


def kingdoms_epoch(state: GameState) -> int:
    """The epoch a Kingdoms state is in: rollouts stop when the engine has scored the epoch."""
    from kingmaker.games.kingdoms.state import KingdomsState

    assert isinstance(state, KingdomsState)
    return state.epoch


def kingdoms_evaluation(state: GameState) -> tuple[float, ...]:
    """Each seat's gold after an epoch's scoring, plus a reserve price for its castles of rank 2
    and up still in hand (spent for good once placed, they will pay in a later epoch)."""
    from kingmaker.sample_bots.kingdoms.greedy_bot import RESERVE_PER_RANK

    view = state.observation(0)  # gold and castles in hand are public: any seat's view will do
    worth = [
        player.gold + sum(RESERVE_PER_RANK * rank * n for rank, n in enumerate(player.castles))
        for player in view.players
    ]
    return margin_evaluation(worth, KINGDOMS_SCALE)


KINGS_ROAD_HORIZON = 8
"""Decisions a King's Road rollout plays (four to eight rounds) before it is judged."""
KINGS_ROAD_SCALE = 10.0
"""Points of lead that count as a fairly safe win: the game is played to 40."""


def kings_road_evaluation(state: GameState) -> tuple[float, ...]:
    """Each seat's score so far (public), as a margin over the best other seat."""
    view = state.observation(0)
    return margin_evaluation([player.score for player in view.standings], KINGS_ROAD_SCALE)


SMALL_BUDGETS = {"kingdoms": 32, "kings_road": 8, "kingsburg": 24, "kingsville": 12}
"""Rollouts per decision that beat the heuristic in seconds per match (Kingdoms needs 32: with
16 its four candidates get too few samples each): the search(1x) of
``bench/search_strength.py`` and ``bench/ladder_validity.py``."""


def guided_search_bot(game: str, budget: Budget | None = None, seed: int | None = None) -> SearchBot:
    """The search bot for ``game``, guided by its heuristic (see the module docstring)."""
    guide = guide_for(game)
    return SearchBot(
        budget,
        seed=seed,
        guide=guide.values,
        rollout=guided_rollout(guide.values, epsilon=guide.epsilon, noise=guide.noise),
        horizon=guide.horizon,
        stage=guide.stage,
        evaluate=guide.evaluate,
        width=guide.width,
        caution=guide.caution,
        kind=guide.kind,
        even_rounds=guide.even_rounds,
    )


if __name__ == "__main__":
    import sys

    from kingmaker.sdk import run

    arguments = sys.argv[1:]
    iterations = None
    if "--iterations" in arguments:
        at = arguments.index("--iterations")
        iterations = int(arguments[at + 1])
        del arguments[at : at + 2]
    run(guided_search_bot(arguments[0], Budget(iterations=iterations) if iterations else None))
