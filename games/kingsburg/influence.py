"""Dice: the rolls, the Statue and Chapel re-rolls, and the legal ways to influence advisors.

An influence spends a group of the player's unplaced dice whose sum, plus 2 for one "+2" token
(at most one per group) and plus or minus 1 for the Market (once a season), is exactly the
advisor's number. The group holds at least one coloured die; white dice only join one.
An advisor takes one group, a second only through the King's Envoy (one Envoy exists, so at
most two groups).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from itertools import combinations

from kingmaker.games.kingsburg.actions import Influence, UseChapel, UseStatue
from kingmaker.games.kingsburg.data import SMUGGLER, Building
from kingmaker.games.kingsburg.province import Province
from kingmaker.games.kingsburg.views import DiceGroup

ADVISORS = range(1, 19)


def sub_multisets(values: Sequence[int]) -> list[tuple[int, ...]]:
    """Every distinct sub-multiset of the dice values (ascending tuples), the empty one first."""
    return list(_sub_multisets(tuple(sorted(values))))


@functools.cache
def _sub_multisets(ordered: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    # A handful of dice with values 1-6: few distinct hands, each asked for again and again.
    found = {combo for size in range(len(ordered) + 1) for combo in combinations(ordered, size)}
    return tuple(sorted(found, key=lambda combo: (len(combo), combo)))


_influence = functools.cache(Influence)
"""Influences are frozen values: each distinct one is built once and handed out again."""


def influence_options(
    province: Province, court: Sequence[Sequence[DiceGroup]], holds_envoy: bool
) -> list[Influence]:
    """The legal influences for this player now (empty means the player must pass)."""
    tokens = (False, True) if province.plus_two > 0 else (False,)
    markets = (0, -1, 1) if province.owns(Building.MARKET) and not province.market_used else (0,)
    options = []
    whites = [(white, sum(white)) for white in _sub_multisets(tuple(sorted(province.white)))]
    for coloured in _sub_multisets(tuple(sorted(province.coloured)))[1:]:
        coloured_sum = sum(coloured)
        for white, white_sum in whites:
            dice = coloured_sum + white_sum
            for plus_two in tokens:
                for market in markets:
                    advisor = dice + 2 * plus_two + market
                    if advisor not in ADVISORS:
                        continue
                    if advisor == SMUGGLER and province.vp < 1:
                        continue  # the Smuggler is paid 1 VP: a player with none cannot pay
                    groups = len(court[advisor])
                    if groups == 0:
                        envoy = False
                    elif groups == 1 and holds_envoy:
                        envoy = True
                    else:
                        continue
                    options.append(_influence(advisor, coloured, white, plus_two, market, envoy))
    return options


def reroll_options(province: Province) -> list[UseStatue | UseChapel]:
    """The Statue and Chapel re-rolls this player may still take this season."""
    options: list[UseStatue | UseChapel] = []
    dice = province.coloured + province.white
    if province.owns(Building.STATUE) and not province.statue_used and len(set(dice)) == 1:
        if province.coloured:
            options.append(UseStatue(white=False))
        if province.white:
            options.append(UseStatue(white=True))
    if province.owns(Building.CHAPEL) and not province.chapel_used and sum(dice) <= 7:
        options.append(UseChapel())
    return options


def remove_dice(pool: list[int], used: Sequence[int]) -> None:
    for value in used:
        pool.remove(value)
