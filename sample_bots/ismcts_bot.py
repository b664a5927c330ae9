"""OpenSpiel's ISMCTS over kingmaker's games, as a sample bot: the RL world's search, unchanged.

ISMCTS (Cowling et al. 2012) searches one tree over information sets, sampling at each simulation
a world the seat cannot tell from the real one; here each world comes from the game's own
``determinize`` (``KingmakerState.resample_from_infostate``), so the search never sees a secret.
OpenSpiel's Python ISMCTS takes sequential games only: King's Road and Kingsburg, simultaneous,
are given to it one seat at a time (``envs/turn_based.py``), the searching seat first.

``factory`` judges leaves by random rollouts, OpenSpiel's default. ``guided_factory`` is the one
that beats the heuristics: each new node's prior ranks its moves by the game's heuristic bot's
valuation, nodes grow one child at a time in that order (progressive widening: a node visited n
times has tried 1 + sqrt(n) moves, so a small budget is spent on the heuristic's best few rather
than once on each of 150), and a leaf is judged by the search bot's own rollout
(``sample_bots/search_bot.py``: the heuristic plays every seat, to the game's end, or the end of
Kingdoms' epoch, or King's Road's horizon, judged by the engine). No rule is written again: the
rollout runs the engine, the heuristic reads the seat's observation.

    kingmaker play-policy kingdoms kingmaker.sample_bots.ismcts_bot:factory --openspiel
    python -m kingmaker.sample_bots.ismcts_bot GAME [--guided] [--simulations N]
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

SIMULATIONS = int(os.environ.get("KINGMAKER_ISMCTS_SIMULATIONS", "64"))
GAMES = ("kingdoms", "kings_road", "kingsburg", "kingsville")


def factory(game: Any, player: int, simulations: int = SIMULATIONS) -> Any:
    """An ISMCTS ``pyspiel.Bot`` for ``player`` of an OpenSpiel game from ``kingmaker.envs.openspiel``."""
    from open_spiel.python.algorithms import ismcts, mcts

    rng = np.random.RandomState(player)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    return ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations, random_state=rng)


PRIOR_LED = frozenset({"kingdoms", "kingsburg"})
"""Games whose guided search explores in proportion to the heuristic's prior (PUCT) and plays the
prior's favourite of moves visited alike (``WideningISMCTSBot(ties_to_prior=True)``). In Kingdoms
an epoch's gold margin, squashed, hardly differs between moves once a seat is well behind: UCT
spread its visits evenly over moves whose values differed by less than their noise, and the move
played was drawn among the most visited, so the search lost to its own heuristic (0.27 over 11
duplicate pairs at 64 simulations). In Kingsburg a rollout to the game's end carries five years of
dice: with UCT at 96 simulations it scored 2 of 8 against search:24 (seeds 1-4), led by the prior
12 of 14 (seeds 1-7). Kingsville and King's Road keep UCT, with which they were measured
(``docs/writing-a-bot.md``)."""


def guided_factory(game: Any, player: int, simulations: int | None = None) -> Any:
    """An ISMCTS ``pyspiel.Bot`` whose prior, widening and rollouts follow the game's heuristic."""
    from open_spiel.python.algorithms import ismcts

    from kingmaker.sample_bots.ismcts_guide import GuidedEvaluator, WideningISMCTSBot

    name = game.engine.spec.name
    prior_led = name in PRIOR_LED
    selection = ismcts.ChildSelectionPolicy.PUCT if prior_led else ismcts.ChildSelectionPolicy.UCT
    return WideningISMCTSBot(
        game,
        GuidedEvaluator(name, seed=player),
        uct_c=1.0,
        max_simulations=simulations or int(os.environ.get("KINGMAKER_ISMCTS_GUIDED_SIMULATIONS", "32")),
        random_state=np.random.RandomState(player),
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
        child_selection_policy=selection,
        ties_to_prior=prior_led,
    )


def _game_bot(game: str) -> type[Any]:
    """A bot class for ``game`` taking no arguments, as ``kingmaker duel`` makes ``module:Class``."""
    from kingmaker.envs.policy_bot import SpielBot

    class IsmctsBot(SpielBot):
        def __init__(self) -> None:
            super().__init__(game, factory, name="ismcts", turn_based=True)

    IsmctsBot.__name__ = IsmctsBot.__qualname__ = "".join(w.title() for w in game.split("_")) + "Ismcts"
    return IsmctsBot


def _guided_game_bot(game: str) -> type[Any]:
    from kingmaker.envs.policy_bot import SpielBot

    class GuidedIsmctsBot(SpielBot):
        def __init__(self) -> None:
            super().__init__(game, guided_factory, name="ismcts-guided", turn_based=True)

    GuidedIsmctsBot.__name__ = GuidedIsmctsBot.__qualname__ = (
        "".join(w.title() for w in game.split("_")) + "GuidedIsmcts"
    )
    return GuidedIsmctsBot


def __getattr__(name: str) -> type[Any]:
    # KingdomsIsmcts, KingsvilleGuidedIsmcts, ...: made on first use, so importing this needs no
    # OpenSpiel.
    for game in GAMES:
        for make in (_game_bot, _guided_game_bot):
            bot = make(game)
            if bot.__name__ == name:
                globals()[name] = bot
                return bot
    raise AttributeError(name)


def main(arguments: list[str]) -> None:
    from kingmaker.envs.policy_bot import SpielBot
    from kingmaker.sdk import run

    if not arguments or arguments[0] not in GAMES:
        raise SystemExit(f"usage: ismcts_bot GAME [--guided] [--simulations N] (GAME: {', '.join(GAMES)})")
    guided = "--guided" in arguments
    simulations = (
        int(arguments[arguments.index("--simulations") + 1]) if "--simulations" in arguments else None
    )

    def make(game: Any, player: int) -> Any:
        if guided:
            return guided_factory(game, player, simulations)
        return factory(game, player, simulations or SIMULATIONS)

    name = "ismcts-guided" if guided else "ismcts"
    run(SpielBot(arguments[0], make, name=name, turn_based=True), games=[arguments[0]])


if __name__ == "__main__":
    main(sys.argv[1:])
