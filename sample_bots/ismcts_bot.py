"""OpenSpiel's ISMCTS over kingmaker's games, as a sample bot: the RL world's search, unchanged.

ISMCTS (Cowling et al. 2012) searches one tree over information sets, sampling at each simulation
a world the seat cannot tell from the real one; here each world comes from the game's own
``determinize`` (``KingmakerState.resample_from_infostate``), so the search never sees a secret.
Leaves are judged by random rollouts. OpenSpiel's Python ISMCTS takes sequential games only:
Kingdoms and Kingsville.

    kingmaker play-policy kingdoms kingmaker.sample_bots.ismcts_bot:factory --openspiel
    python -m kingmaker.sample_bots.ismcts_bot GAME [--simulations N]
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

SIMULATIONS = int(os.environ.get("KINGMAKER_ISMCTS_SIMULATIONS", "64"))
GAMES = ("kingdoms", "kingsville")


def factory(game: Any, player: int, simulations: int = SIMULATIONS) -> Any:
    """An ISMCTS ``pyspiel.Bot`` for ``player`` of an OpenSpiel game from ``kingmaker.envs.openspiel``."""
    from open_spiel.python.algorithms import ismcts, mcts

    rng = np.random.RandomState(player)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    return ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=simulations, random_state=rng)


def _game_bot(game: str) -> type[Any]:
    """A bot class for ``game`` taking no arguments, as ``kingmaker duel`` makes ``module:Class``."""
    from kingmaker.envs.policy_bot import SpielBot

    class IsmctsBot(SpielBot):
        def __init__(self) -> None:
            super().__init__(game, factory, name="ismcts")

    IsmctsBot.__name__ = IsmctsBot.__qualname__ = "".join(w.title() for w in game.split("_")) + "Ismcts"
    return IsmctsBot


def __getattr__(name: str) -> type[Any]:
    # KingdomsIsmcts, KingsvilleIsmcts: made on first use, so importing this needs no OpenSpiel.
    for game in GAMES:
        bot = _game_bot(game)
        if bot.__name__ == name:
            globals()[name] = bot
            return bot
    raise AttributeError(name)


def main(arguments: list[str]) -> None:
    from kingmaker.envs.policy_bot import SpielBot
    from kingmaker.sdk import run

    if not arguments or arguments[0] not in GAMES:
        raise SystemExit(f"usage: ismcts_bot GAME [--simulations N] (GAME: {', '.join(GAMES)})")
    simulations = (
        int(arguments[arguments.index("--simulations") + 1]) if "--simulations" in arguments else SIMULATIONS
    )
    run(
        SpielBot(arguments[0], lambda game, player: factory(game, player, simulations), name="ismcts"),
        games=[arguments[0]],
    )


if __name__ == "__main__":
    main(sys.argv[1:])
