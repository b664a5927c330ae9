"""One player's holdings (goods, VP, soldiers, buildings, this season's dice) and what they allow.

This is the mutable record inside the game state; observations copy it into ``ProvinceView``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kingmaker.games.kingsburg.data import (
    BUILDING_FACTS,
    Building,
    Good,
    column_of,
    left_neighbour,
)

GoodsCount = tuple[int, int, int]
"""Gold, wood, stone."""


@dataclass
class Province:
    gold: int = 0
    wood: int = 0
    stone: int = 0
    vp: int = 0
    soldiers: int = 0
    plus_two: int = 0
    buildings: set[Building] = field(default_factory=set)
    coloured: list[int] = field(default_factory=list)
    """This season's coloured dice not yet placed on an advisor."""
    white: list[int] = field(default_factory=list)
    """This season's white dice not yet placed."""
    aid_die: bool = False
    """The King's aid: an extra white die this spring."""
    passed: bool = False
    statue_used: bool = False
    chapel_used: bool = False
    market_used: bool = False
    town_hall_used: bool = False
    builds: int = 0
    peeked_year: int = 0
    """The year whose enemy card this player looked at (General or Queen); 0 if none."""

    def copy(self) -> Province:
        """An independent copy (its set and lists are new; what they hold is immutable)."""
        return replace(
            self, buildings=set(self.buildings), coloured=list(self.coloured), white=list(self.white)
        )

    def owns(self, building: Building) -> bool:
        return building in self.buildings

    def goods(self) -> int:
        return self.gold + self.wood + self.stone

    def count(self, good: Good) -> int:
        return (self.gold, self.wood, self.stone)[good.value - 1]

    def gain(self, gold: int = 0, wood: int = 0, stone: int = 0) -> None:
        self.gold += gold
        self.wood += wood
        self.stone += stone

    def pay(self, gold: int = 0, wood: int = 0, stone: int = 0) -> None:
        if gold > self.gold or wood > self.wood or stone > self.stone:
            raise AssertionError("a province may never pay goods it does not hold")
        self.gain(-gold, -wood, -stone)

    def gain_good(self, good: Good, amount: int = 1) -> None:
        self.gain(*(amount if kind is good else 0 for kind in Good))

    def lose_vp(self, amount: int) -> None:
        # The scoring track starts at 0: a player never drops below it (rulebook silent).
        self.vp = max(0, self.vp - amount)

    def cost(self, building: Building) -> GoodsCount:
        """The building's cost for this player: the Crane takes 1 gold off columns III and IV."""
        facts = BUILDING_FACTS[building]
        gold = facts.gold
        if self.owns(Building.CRANE) and column_of(building) >= 2:
            gold = max(0, gold - 1)
        return gold, facts.wood, facts.stone

    def can_build(self, building: Building) -> bool:
        if self.owns(building):
            return False
        left = left_neighbour(building)
        if left is not None and not self.owns(left):
            return False
        gold, wood, stone = self.cost(building)
        return self.gold >= gold and self.wood >= wood and self.stone >= stone

    def buildable(self) -> list[Building]:
        """``[b for b in Building if self.can_build(b)]``, from a table made once (enum lookups
        are slow and this runs for every construction decision)."""
        owned = self.buildings
        crane = Building.CRANE in owned
        found = []
        for building, left, gold, wood, stone, crane_discount in _BUILD_RULES:
            if building in owned or (left is not None and left not in owned):
                continue
            if crane and crane_discount:
                gold = max(0, gold - 1)
            if self.gold >= gold and self.wood >= wood and self.stone >= stone:
                found.append(building)
        return found

    def dice_sum(self) -> int:
        return sum(self.coloured) + sum(self.white)


_BUILD_RULES: tuple[tuple[Building, Building | None, int, int, int, bool], ...] = tuple(
    (
        building,
        left_neighbour(building),
        BUILDING_FACTS[building].gold,
        BUILDING_FACTS[building].wood,
        BUILDING_FACTS[building].stone,
        column_of(building) >= 2,
    )
    for building in Building
)
"""Per building, in ``Building`` order: the one it needs to its left, its printed gold, wood and
stone, and whether the Crane takes a gold off it (what ``can_build`` and ``cost`` read)."""


def goods_choices(amount: int, limit: GoodsCount | None = None) -> list[GoodsCount]:
    """Every way to pick ``amount`` goods (gold, wood, stone), each kind at most ``limit``."""
    cap = limit or (amount, amount, amount)
    picks = []
    for gold in range(min(amount, cap[0]) + 1):
        for wood in range(min(amount - gold, cap[1]) + 1):
            stone = amount - gold - wood
            if stone <= cap[2]:
                picks.append((gold, wood, stone))
    return picks
