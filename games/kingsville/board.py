"""One player's castle and purse, as the engine keeps it (mutable; observations copy it out).

The castle is a row of ``castle_slots`` slots. Each slot has room for a theatre above, a person
with their order in the middle, and a farm below. Theatres and farms always fill the left-most
slots (the rulebook places each new one in the left-most slot still available, and none is ever
lost), so "slot i has a theatre" is simply ``i < theatres``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kingmaker.games.kingsville.cards import (
    CARDS,
    OrderCard,
    PersonType,
    Resources,
    WonderCard,
)

RECRUIT_GOLD = 5
UPGRADE_GOLD = 10
BUILDING_BASE_WOOD = 2


def building_cost(owned: int) -> int:
    """Wood for a theatre or farm: 2 plus 1 for every one of that kind already owned."""
    return BUILDING_BASE_WOOD + owned


@dataclass
class Board:
    gold: int
    wood: int
    points: int = 0
    farms: int = 1
    theatres: int = 1
    people: list[PersonType | None] = field(default_factory=list)
    orders: list[OrderCard | None] = field(default_factory=list)
    wonders: list[WonderCard] = field(default_factory=list)
    turns: int = 0

    @classmethod
    def starting(cls) -> Board:
        """One farm, one theatre and the King in the first slot, and the starting purse."""
        slots = CARDS.castle_slots
        people: list[PersonType | None] = [PersonType.KING] + [None] * (slots - 1)
        return cls(
            gold=CARDS.starting.gold,
            wood=CARDS.starting.wood,
            people=people,
            orders=[None] * slots,
        )

    def copy(self) -> Board:
        """An independent copy (the cards inside are frozen and shared)."""
        return replace(self, people=list(self.people), orders=list(self.orders), wonders=list(self.wonders))

    def can_pay(self, cost: Resources) -> bool:
        # Costs are gold and wood only; points may be negative and are never spent.
        return self.gold >= cost.gold and self.wood >= cost.wood

    def pay(self, cost: Resources) -> None:
        assert self.can_pay(cost), "the engine only pays costs it has checked"
        self.gold -= cost.gold
        self.wood -= cost.wood

    def gain(self, gain: Resources) -> None:
        self.gold += gain.gold
        self.wood += gain.wood
        self.points += gain.points

    def empty_slot(self) -> int | None:
        """The left-most slot without a person, where a recruit goes."""
        return next((i for i, person in enumerate(self.people) if person is None), None)
