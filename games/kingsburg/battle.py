"""Winter: combat values, the outcome of each player's battle, and which building falls.

Combat value = soldiers (after the King's reinforcement die) + every owned building's modifier
against this enemy family (Farms -1). Above the enemy's strength wins (the Stone Wall also wins
a tie), equal is a draw, below loses. The bonus VP goes to the victorious player(s) with the
highest combat value.
"""

from __future__ import annotations

import enum

from kingmaker.games.kingsburg.data import (
    BUILDING_FACTS,
    Building,
    EnemyCard,
    battle_modifier,
    column_of,
)
from kingmaker.games.kingsburg.province import Province


class Outcome(enum.Enum):
    WIN = 1
    DRAW = 2
    LOSS = 3


def combat_value(province: Province, enemy: EnemyCard) -> int:
    return province.soldiers + sum(battle_modifier(b, enemy.kind) for b in province.buildings)


def outcome(province: Province, enemy: EnemyCard) -> Outcome:
    value = combat_value(province, enemy)
    if value > enemy.strength:
        return Outcome.WIN
    if value == enemy.strength:
        return Outcome.WIN if province.owns(Building.STONE_WALL) else Outcome.DRAW
    return Outcome.LOSS


def building_to_destroy(province: Province) -> Building | None:
    """The building in the rightmost column that holds one, topmost row first."""
    if not province.buildings:
        return None
    return min(province.buildings, key=lambda b: (-column_of(b), b.value))


def apply_fixed_reward(province: Province, enemy: EnemyCard) -> None:
    """The winner's reward except goods of choice (asked separately), plus the Fortress VP."""
    province.gain(enemy.reward_gold, enemy.reward_wood, enemy.reward_stone)
    province.vp += enemy.reward_vp
    if province.owns(Building.FORTRESS):
        province.vp += 1


def apply_fixed_loss(province: Province, enemy: EnemyCard) -> None:
    """The loser's losses except goods of choice: named goods (as many as held), building, VP.

    The goods of choice come between the named goods and the building on the card; the
    building and VP losses do not depend on goods, so applying them first changes nothing."""
    province.pay(
        min(enemy.loss_gold, province.gold),
        min(enemy.loss_wood, province.wood),
        min(enemy.loss_stone, province.stone),
    )
    if enemy.loss_building:
        fallen = building_to_destroy(province)
        if fallen is not None:
            province.buildings.discard(fallen)
            province.lose_vp(BUILDING_FACTS[fallen].vp)
    province.lose_vp(enemy.loss_vp)
