"""The heuristic sample bot beats the random bot clearly, in seeded local games."""

from __future__ import annotations

from kingmaker.sample_bots.kingsburg.heuristic_bot import HeuristicBot
from kingmaker.sample_bots.random_bot import RandomBot
from kingmaker.sdk import Bot, play_local

GAMES = 20


def test_heuristic_bot_wins_clearly_more_than_half_against_random() -> None:
    wins = 0.0
    for seed in range(GAMES):
        heuristic_seat = seed % 2  # alternate seats so the first-seat draw evens out
        bots: list[Bot] = [RandomBot(seed), RandomBot(seed)]
        bots[heuristic_seat] = HeuristicBot()
        result = play_local("kingsburg", bots, seed=seed).result
        if result.ranks[heuristic_seat] == 1:
            shared = result.ranks.count(1)
            wins += 1 / shared
    # Over 200 games it wins about 98%; 15 of 20 is far above a coin flip (p < 0.021).
    assert wins >= 15
