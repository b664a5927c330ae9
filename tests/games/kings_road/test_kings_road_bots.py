"""The sample greedy bot beats the random bot clearly, in seeded local games."""

from __future__ import annotations

import pytest

from kingmaker.sample_bots.kings_road.greedy_bot import GreedyBot
from kingmaker.sample_bots.random_bot import RandomBot
from kingmaker.sdk import Bot, play_local


@pytest.mark.parametrize("players", [2, 4])
def test_the_greedy_bot_wins_clearly_more_than_half_against_random_bots(players: int) -> None:
    games = 24
    wins = 0.0
    for seed in range(games):
        greedy_seat = seed % players
        bots: list[Bot] = [RandomBot(seed * 10 + seat) for seat in range(players)]
        bots[greedy_seat] = GreedyBot(seed)
        result = play_local("kings_road", bots, seed=seed).result
        if result.ranks[greedy_seat] == 1:
            shared = result.ranks.count(1)
            wins += 1 / shared
    # A fair share would be 1/players; "clearly" here means at least three games in four.
    assert wins >= 0.75 * games


def test_the_greedy_bot_plays_the_witch_and_its_re_choice_legally() -> None:
    # The local runner raises on an illegal reply, so finishing is the legality check.
    match = play_local(
        "kings_road",
        [GreedyBot(1), GreedyBot(2), RandomBot(3)],
        seed=3,
        options={"permanent_nobles": True},
    )
    witch_rounds = [joint for joint in match.log if len(joint) < 3]
    assert witch_rounds, "the greedy bots never reached a Witch re-choice"
    assert {seat for joint in witch_rounds for seat in joint} & {0, 1}
