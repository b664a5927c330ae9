"""The continuous ladder's matchmaker, rule by rule, on a pool held in memory (``MemoryPool``):
the seed is a least-played bot, near bots meet more, a pair that just met is held back, seats are
shuffled, and the ladder stops (or waits) when it should. How it mixes over a long league is
test_ladder_mixing.py."""

from __future__ import annotations

import itertools
from collections import Counter

from kingmaker.ladder.pairing.schedules import Matchmaker, Progress
from kingmaker.ladder.pairing.schedules.pool import MemoryPool, pair

SIGMA = 25.0 / 3


def pool_of(mus: dict[int, float]) -> MemoryPool:
    return MemoryPool({bot: (mu, SIGMA) for bot, mu in mus.items()})


def run(maker: Matchmaker, pool: MemoryPool, groups: int) -> list[tuple[int, ...]]:
    """Plan ``groups`` groups, counting each in the pool as the league store does."""
    played: list[tuple[int, ...]] = []
    for group in range(groups):
        seated = maker.next_group(Progress(groups_planned=group, matches_planned=group, pool=pool))
        if seated is None:
            break
        pool.planned(seated, group)
        played.append(seated)
    return played


def test_every_group_holds_a_least_played_bot() -> None:
    pool = pool_of(dict.fromkeys(range(7), 25.0))
    maker = Matchmaker(3, 11)
    counts: Counter[int] = Counter(dict.fromkeys(range(7), 0))
    for group in range(70):
        fewest = min(counts.values())
        seated = maker.next_group(Progress(groups_planned=group, matches_planned=group, pool=pool))
        assert seated is not None and len(set(seated)) == 3
        assert any(counts[bot] == fewest for bot in seated), f"group {group} left the least played out"
        pool.planned(seated, group)
        counts.update(seated)
    assert max(counts.values()) - min(counts.values()) <= 3


def test_a_newcomer_is_served_first() -> None:
    pool = pool_of({1: 25.0, 2: 26.0, 3: 27.0, 4: 28.0, 5: 25.0})
    pool.counts = {1: 10, 2: 10, 3: 10, 4: 10, 5: 0}
    seated = Matchmaker(2, 0).next_group(Progress(pool=pool))
    assert seated is not None and 5 in seated


def test_near_bots_meet_more_and_far_ones_still_meet() -> None:
    # Two clusters far apart in skill (ratings held fixed): pairs within a cluster meet more
    # often than pairs across, but every pair meets.
    pool = pool_of({1: 10.0, 2: 11.0, 3: 12.0, 4: 38.0, 5: 39.0, 6: 40.0})
    played = run(Matchmaker(2, 5), pool, 600)
    met = Counter(pair(*seated) for seated in played)
    near = [
        met[pair(a, b)] for cluster in ((1, 2, 3), (4, 5, 6)) for a, b in itertools.combinations(cluster, 2)
    ]
    far = [met[pair(a, b)] for a in (1, 2, 3) for b in (4, 5, 6)]
    assert min(near) > max(far)
    assert min(far) >= 1
    assert len(met) == 15


def test_a_pair_that_just_met_is_held_back() -> None:
    # Bot 2 is nearest the seed (bot 1, the least played) and met it in the last group; bot 3 is a
    # little farther and never met it. Over many league seeds, 1's next opponent is far more often
    # 3 than 2 (the far bots 4 to 6 take the rest).
    picks: Counter[int] = Counter()
    for league_seed in range(200):
        pool = pool_of({1: 25.0, 2: 25.5, 3: 26.5, 4: 40.0, 5: 41.0, 6: 42.0})
        pool.counts = {1: 5, 2: 6, 3: 6, 4: 6, 5: 6, 6: 6}
        pool.met = {pair(1, 2): 99}
        seated = Matchmaker(2, league_seed).next_group(Progress(groups_planned=100, pool=pool))
        assert seated is not None and 1 in seated
        picks.update(set(seated) - {1})
    assert picks[3] > 10 * picks[2]
    assert picks[3] > picks[4] + picks[5] + picks[6]


def test_no_bot_keeps_the_first_seat() -> None:
    played = run(Matchmaker(2, 3), pool_of(dict.fromkeys(range(4), 25.0)), 80)
    first = Counter(seated[0] for seated in played)
    assert len(first) == 4
    assert max(first.values()) < 0.5 * len(played)


def test_the_same_league_seed_and_state_plan_the_same_groups() -> None:
    mus = {bot: 20.0 + bot for bot in range(10)}
    first = run(Matchmaker(3, 42), pool_of(mus), 50)
    again = run(Matchmaker(3, 42), pool_of(mus), 50)
    other = run(Matchmaker(3, 43), pool_of(mus), 50)
    assert first == again
    assert first != other


def test_it_stops_at_its_match_count_and_time_budget() -> None:
    counted = Matchmaker(2, 0, max_matches=9)
    assert len(run(counted, pool_of(dict.fromkeys(range(4), 25.0)), 100)) == 9
    assert counted.done(Progress(matches_planned=9))
    timed = Matchmaker(2, 0, time_budget_s=60)
    pool = pool_of(dict.fromkeys(range(4), 25.0))
    assert timed.next_matches(Progress(elapsed_s=59.9, pool=pool))
    assert timed.next_matches(Progress(elapsed_s=60.0, pool=pool)) == []
    assert timed.done(Progress(elapsed_s=60.0))


def test_duplicate_play_seats_every_rotation_of_one_group() -> None:
    maker = Matchmaker(3, 0, duplicate=True)
    batch = maker.next_matches(Progress(pool=pool_of(dict.fromkeys(range(5), 25.0))))
    assert len(batch) == 3
    assert len({match.seed for match in batch}) == 1
    assert [match.bots for match in batch[1:]] == [
        batch[0].bots[1:] + batch[0].bots[:1],
        batch[0].bots[2:] + batch[0].bots[:2],
    ]


def test_with_too_few_bots_present_it_waits_rather_than_ends() -> None:
    maker = Matchmaker(3, 0, max_matches=10)
    pool = pool_of({1: 25.0, 2: 25.0})  # the third bot is away (not in the pool)
    assert maker.next_matches(Progress(pool=pool)) == []
    assert not maker.done(Progress())
    pool.ratings[3] = (25.0, SIGMA)  # it came back
    assert len(maker.next_matches(Progress(pool=pool))) == 1
