"""A continuous ladder keeps mixing: bots of known strengths, matches planned by the real
matchmaker and rated by the ladder's own TrueSkill, outcomes drawn from TrueSkill's model of a
game (``schedules.simulation``; no referee, a league in about a second).

What is checked, and why so:

- *Windows.* With 6 bots, every window of 200 matches: every pair meets at least once and no pair
  meets more than 3 times its fair share (the meetings of the window spread evenly over the 15
  pairs: 13 with 2 seats, 40 with 3). With 30 bots a window of 200 matches holds 200 (2 seats) or
  600 (3 seats) meetings for 435 pairs, a fair share of 0.46 or 1.4 meetings, so "every pair" is
  impossible there and "3 times" means nothing. The same two rules are checked for 30 bots over
  the whole league, 1,000 matches with 3 seats and 3,000 with 2: a fair share of 6.9 meetings a
  pair either way, the same order as 6 bots' 13 and 40.
- *Near pairs meet more*: pairs at most 1 beta apart meet more often on average than pairs at
  least 3 betas apart.
- *Order.* The standings (by conservative rating) put every pair of bots whose strengths differ by
  at least 1 beta in the right order: 1 beta is the gap at which the stronger wins 76% of 2-seat
  games, about twice the spread of two ratings' difference after ~70 matches each, so a reversal
  there is a real failure, not noise. With 6 bots 1 beta apart that is the exact order; with 30
  bots (0.17 beta apart, a gap no ladder resolves in 100 matches a bot) the overall order must
  also agree: Spearman rank correlation at least 0.95.
"""

from __future__ import annotations

import itertools
import statistics
from collections import Counter

import pytest

from kingmaker.ladder.pairing.schedules.pool import pair
from kingmaker.ladder.pairing.schedules.simulation import (
    GAME,
    misordered,
    mixing,
    simulate,
    spearman,
    spread_strengths,
    windows,
)
from kingmaker.ladder.ratings.ratings import settings_for

BETA = settings_for(GAME).beta
SPREAD_BETAS = 5.0
"""The strongest bot is 5 betas above the weakest."""


@pytest.mark.parametrize(
    ("bots", "players", "matches", "window"),
    [(6, 2, 1000, 200), (6, 3, 1000, 200), (30, 3, 1000, 1000), (30, 2, 3000, 3000)],
)
@pytest.mark.parametrize("league_seed", [1, 2])
def test_a_ladder_keeps_every_pair_meeting_and_finds_the_order(
    bots: int, players: int, matches: int, window: int, league_seed: int
) -> None:
    ladder = simulate(spread_strengths(bots, SPREAD_BETAS), players, matches, league_seed)
    assert len(ladder.matches) == matches
    for number, stretch in enumerate(windows(ladder.matches, window)):
        mixed = mixing(stretch, bots)
        assert mixed.pairs_met == mixed.pairs, f"window {number}: {mixed}"
        assert mixed.largest_share <= 3.0, f"window {number}: {mixed}"

    strengths = ladder.strengths
    met = Counter(pair(a, b) for seated in ladder.matches for a, b in itertools.combinations(seated, 2))
    gaps = {
        pair(a, b): abs(strengths[a] - strengths[b]) / BETA for a, b in itertools.combinations(strengths, 2)
    }
    near = statistics.mean(met[key] for key, gap in gaps.items() if gap <= 1.0)
    far = statistics.mean(met[key] for key, gap in gaps.items() if gap >= 3.0)
    assert near > far

    reversed_pairs = [
        (weak, strong) for weak, strong in misordered(ladder) if gaps[pair(weak, strong)] >= 1.0
    ]
    assert reversed_pairs == []
    assert spearman(ladder) >= 0.95
