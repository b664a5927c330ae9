"""TrueSkill settings per game, the fault policy on ranks, and the update itself (pure).

One ``trueskill.TrueSkill`` environment per game, so a game's settings can change without touching
another's. The defaults are TrueSkill's own (mu 25, sigma 25/3, beta 25/6) and in particular:

- tau = 25/300 (the dynamics factor): added to every sigma before each update, so a rating never
  freezes and a bot that improves (or is replaced by a new version) still moves;
- draw probability 0.10: the games rank with shared places when the rules cannot separate
  seats, and a zero draw probability would make TrueSkill treat every shared place as an
  impossible outcome. 10 % is TrueSkill's default and is in the range of how often two adjacent
  seats share a place in these games' playouts; ``GAME_SETTINGS`` overrides it per game.

The conservative rating ``mu - 3 sigma`` orders the standings: a bot climbs by being good *and*
known to be good.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import trueskill

from kingmaker.ladder.storage.models import Rating


@dataclass(frozen=True)
class RatingSettings:
    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10


DEFAULT_SETTINGS = RatingSettings()
GAME_SETTINGS: dict[str, RatingSettings] = {}
"""Per-game overrides of ``DEFAULT_SETTINGS`` (none yet)."""

CONSERVATIVE_SIGMAS = 3


def conservative(mu: float, sigma: float) -> float:
    return mu - CONSERVATIVE_SIGMAS * sigma


def settings_for(game: str) -> RatingSettings:
    return GAME_SETTINGS.get(game, DEFAULT_SETTINGS)


@functools.cache
def environment(game: str) -> trueskill.TrueSkill:
    """The game's TrueSkill environment (built once)."""
    s = settings_for(game)
    return trueskill.TrueSkill(
        mu=s.mu, sigma=s.sigma, beta=s.beta, tau=s.tau, draw_probability=s.draw_probability
    )


def ladder_ranks(game_ranks: Sequence[int], bot_faults: Sequence[bool]) -> tuple[int, ...]:
    """The ranks the ladder rates: the game's order among seats without a bot fault, then every
    faulty seat sharing last place (a forfeit can never beat a seat that played on)."""
    clean = [rank for rank, fault in zip(game_ranks, bot_faults, strict=True) if not fault]
    last = len(clean) + 1
    return tuple(
        last if fault else 1 + sum(1 for other in clean if other < rank)
        for rank, fault in zip(game_ranks, bot_faults, strict=True)
    )


def rate(
    game: str, ratings: Sequence[tuple[float, float]], ranks: Sequence[int]
) -> list[tuple[float, float]]:
    """New (mu, sigma) for each seat from a free-for-all with these ranks (1 = best; ties share)."""
    if not 2 <= len(ratings) == len(ranks):
        raise ValueError("rating needs at least two seats and one rank per seat")
    if len(ratings) == 2 and all(sigma > 0 for _, sigma in ratings):
        try:
            first, second = _one_against_one(game, ratings[0], ratings[1], ranks[0], ranks[1])
        except (ArithmeticError, ValueError):
            pass  # the library's own error, below
        else:
            if all(map(math.isfinite, (*first, *second))):
                return [first, second]
    env = environment(game)
    groups = [(env.create_rating(mu, sigma),) for mu, sigma in ratings]
    rated = env.rate(groups, ranks=[rank - 1 for rank in ranks])
    return [(group[0].mu, group[0].sigma) for group in rated]


def new_rating(bot_id: int, game: str) -> Rating:
    """A bot's ladder row for a game before its first match."""
    s = settings_for(game)
    return Rating(bot_id=bot_id, game=game, mu=s.mu, sigma=s.sigma, conservative=conservative(s.mu, s.sigma))


def _one_against_one(
    game: str, first: tuple[float, float], second: tuple[float, float], first_rank: int, second_rank: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """``rate`` for two seats, as the library's factor graph computes it but without the graph:
    with two seats it sends one message down to the performances' difference, truncates it
    (the library's own ``v``/``w`` functions and draw margin) and one back up, and that is the
    closed form below, without the graph's objects (a fifth of a result's CPU). The same
    numbers to within 1e-11 (``tests/ladder/test_ladder_ratings.py``); where the library would
    fail (``w`` out of range), its own functions raise here and ``rate`` asks the library."""
    env = environment(game)
    better, worse = (second, first) if second_rank < first_rank else (first, second)
    (mu_better, sigma_better), (mu_worse, sigma_worse) = better, worse
    var_better = sigma_better**2 + env.tau**2  # the dynamics factor first, as the library's prior
    var_worse = sigma_worse**2 + env.tau**2
    c_squared = var_better + var_worse + 2 * env.beta**2
    c = math.sqrt(c_squared)
    diff, margin = (mu_better - mu_worse) / c, _draw_margin(game) / c
    if first_rank == second_rank:
        v, w = env.v_draw(diff, margin), env.w_draw(diff, margin)
    else:
        v, w = env.v_win(diff, margin), env.w_win(diff, margin)
    rated_better = (mu_better + var_better / c * v, math.sqrt(var_better * (1 - var_better / c_squared * w)))
    rated_worse = (mu_worse - var_worse / c * v, math.sqrt(var_worse * (1 - var_worse / c_squared * w)))
    return (rated_worse, rated_better) if second_rank < first_rank else (rated_better, rated_worse)


@functools.cache
def _draw_margin(game: str) -> float:
    """The draw margin of a two-seat match (the library computes it per match)."""
    env = environment(game)
    return float(trueskill.calc_draw_margin(env.draw_probability, 2, env))
