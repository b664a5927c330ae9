"""Step 4 of docs/writing-a-bot.md: the SDK's ISMCTS with a budget and a rollout policy of your own."""

from __future__ import annotations

import random

from kingmaker.games.api import Action, GameState, Seat
from kingmaker.sdk import run
from kingmaker.sdk.search import Budget, SearchBot


def never_pass(state: GameState, seat: Seat, rng: random.Random) -> Action:
    """Random rollouts, except that a pass is played only when nothing else is legal."""
    legal = state.legal_actions(seat)
    moves = [action for action in legal if type(action).__name__ != "Pass"] or list(legal)
    return moves[rng.randrange(len(moves))]


class MySearchBot(SearchBot):
    name = "my-search"

    def __init__(self) -> None:
        # No iteration count: think for 60% of each decision's deadline plus 5% of the bank.
        super().__init__(Budget(), rollout=never_pass)


if __name__ == "__main__":
    run(MySearchBot())
