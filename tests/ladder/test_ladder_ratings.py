"""TrueSkill updates against published reference values, ties, and the forfeit rank policy.

Reference values: the trueskill package's documentation gives ``rate_1vs1(Rating(), Rating())``
as (29.396, 7.171) and (20.604, 7.171), and a draw as (25.000, 6.458) each. The 4- and 5-player
free-for-all values are the reference test vectors of Moserware's TrueSkill implementation
(``FourTeamsOfOneNotDrawn``, ``FiveTeamsOfOneNotDrawn``, default game info: mu 25, sigma 25/3,
beta 25/6, tau 25/300, draw probability 0.10), which ports to Go, Java, PHP and Python repeat.
"""

from __future__ import annotations

import random

import pytest
from ladder_support import TEST_GAME

from kingmaker.ladder.ratings.ratings import conservative, environment, ladder_ranks, rate

DEFAULT = (25.0, 25.0 / 3)


def close(actual: list[tuple[float, float]], expected: list[tuple[float, float]]) -> bool:
    return all(
        a_mu == pytest.approx(e_mu, abs=1e-6) and a_sigma == pytest.approx(e_sigma, abs=1e-6)
        for (a_mu, a_sigma), (e_mu, e_sigma) in zip(actual, expected, strict=True)
    )


def test_one_against_one_matches_the_documented_example() -> None:
    winner, loser = rate(TEST_GAME, [DEFAULT, DEFAULT], [1, 2])
    assert round(winner[0], 3) == 29.396
    assert round(winner[1], 3) == 7.171
    assert round(loser[0], 3) == 20.604
    assert round(loser[1], 3) == 7.171
    assert close(
        [winner, loser], [(29.39583201999924, 7.171475587326186), (20.60416798000076, 7.171475587326186)]
    )


def test_a_draw_between_equals_only_shrinks_sigma() -> None:
    first, second = rate(TEST_GAME, [DEFAULT, DEFAULT], [1, 1])
    assert close([first, second], [(25.0, 6.4575196623173081), (25.0, 6.4575196623173081)])


def test_four_player_free_for_all_matches_the_reference_vectors() -> None:
    updated = rate(TEST_GAME, [DEFAULT] * 4, [1, 2, 3, 4])
    assert close(
        updated,
        [
            (33.206680965631264, 6.3481091698077057),
            (27.401454693843323, 5.7871629348447584),
            (22.598545306188374, 5.7871629348413451),
            (16.793319034361271, 6.3481091698144967),
        ],
    )


def test_five_player_free_for_all_matches_the_reference_vectors() -> None:
    updated = rate(TEST_GAME, [DEFAULT] * 5, [1, 2, 3, 4, 5])
    assert close(
        updated,
        [
            (34.363135705841188, 6.1361528798112692),
            (29.058448805636779, 5.5358352402833413),
            (25.000000000031758, 5.4200805474429847),
            (20.941551194426314, 5.5358352402709672),
            (15.636864294158848, 6.1361528798163714),
        ],
    )


def test_seats_sharing_a_place_come_out_equal_and_between_their_neighbours() -> None:
    updated = rate(TEST_GAME, [DEFAULT] * 4, [1, 2, 2, 4])
    # Equal up to the factor graph's iterative approximation (a few hundredths of a point).
    assert updated[1][0] == pytest.approx(updated[2][0], abs=0.05)
    assert updated[1][1] == pytest.approx(updated[2][1], abs=1e-6)
    assert updated[0][0] > updated[1][0] > updated[3][0]


def test_the_rating_environment_keeps_ratings_moving() -> None:
    env = environment(TEST_GAME)
    assert env.tau > 0
    assert 0 < env.draw_probability < 1
    # With tau > 0 sigma cannot collapse: a long run of identical results keeps it above tau.
    ratings = [DEFAULT, DEFAULT]
    for _ in range(200):
        ratings = rate(TEST_GAME, ratings, [1, 2])
    assert min(sigma for _, sigma in ratings) > env.tau


def test_conservative_rating_is_mu_minus_three_sigma() -> None:
    assert conservative(30.0, 2.0) == 24.0


@pytest.mark.parametrize(
    ("game_ranks", "faults", "expected"),
    [
        ([1, 2, 3, 4], [False] * 4, (1, 2, 3, 4)),
        ([1, 2, 2, 4], [False] * 4, (1, 2, 2, 4)),
        # The winner on points forfeited: it drops to last, everyone else moves up.
        ([1, 2, 3], [True, False, False], (3, 1, 2)),
        # Several faulty seats share last place whatever they scored.
        ([2, 1, 3, 4], [False, True, False, True], (1, 3, 2, 3)),
        ([1, 2], [True, True], (1, 1)),
        # Ties among the seats that played on survive.
        ([3, 3, 1, 2], [False, False, True, False], (2, 2, 4, 1)),
    ],
)
def test_bot_faults_rank_last(game_ranks: list[int], faults: list[bool], expected: tuple[int, ...]) -> None:
    assert ladder_ranks(game_ranks, faults) == expected


def test_a_forfeiting_winner_loses_rating() -> None:
    ranks = ladder_ranks([1, 2], [True, False])
    forfeiter, other = rate(TEST_GAME, [DEFAULT, DEFAULT], ranks)
    assert forfeiter[0] < 25.0 < other[0]


def test_rate_refuses_a_single_seat() -> None:
    with pytest.raises(ValueError, match="two seats"):
        rate(TEST_GAME, [DEFAULT], [1])


def test_two_seats_rate_as_the_librarys_factor_graph_does() -> None:
    """Two seats are rated by the closed form of what the library's graph computes for them
    (``ratings._one_against_one``): the same numbers, wins, losses and draws, near and far apart."""
    env = environment(TEST_GAME)
    luck = random.Random(5)
    for _ in range(3000):
        pair = [(luck.uniform(-40, 90), luck.uniform(0.3, 9.0)) for _ in range(2)]
        ranks = luck.choice([[1, 2], [2, 1], [1, 1], [2, 2]])
        expected = env.rate([(env.create_rating(*pair[0]),), (env.create_rating(*pair[1]),)], ranks=ranks)
        found = rate(TEST_GAME, pair, ranks)
        for (mu, sigma), (group,) in zip(found, expected, strict=True):
            assert mu == pytest.approx(group.mu, abs=1e-9) and sigma == pytest.approx(group.sigma, abs=1e-9)


def test_two_seats_the_library_cannot_rate_fail_as_it_does() -> None:
    with pytest.raises(FloatingPointError):  # the winner far too far below the loser
        rate(TEST_GAME, [(-1000.0, 0.5), (1000.0, 0.5)], [1, 2])
    with pytest.raises(ValueError, match="sigma"):
        rate(TEST_GAME, [(25.0, 0.0), (25.0, 0.0)], [1, 2])
