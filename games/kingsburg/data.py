"""The printed facts of Kingsburg: province board, buildings, advisors and enemy cards.

Figures come from section 1 of ``rules-data/README.md`` (checked against the rulebook where it
gives them). The enemy cards have a single public source (confidence medium-low); they live in
the one table ``ENEMIES`` so that they can be corrected in one place.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Good(enum.Enum):
    """The three kinds of goods."""

    GOLD = 1
    WOOD = 2
    STONE = 3


class Building(enum.Enum):
    """The 20 buildings, in province-board order: row by row, left to right."""

    STATUE = 1
    CHAPEL = 2
    CHURCH = 3
    CATHEDRAL = 4
    INN = 5
    MARKET = 6
    FARMS = 7
    MERCHANTS_GUILD = 8
    GUARD_TOWER = 9
    BLACKSMITH = 10
    BARRACKS = 11
    WIZARDS_GUILD = 12
    PALISADE = 13
    STABLES = 14
    STONE_WALL = 15
    FORTRESS = 16
    BARRICADE = 17
    CRANE = 18
    TOWN_HALL = 19
    EMBASSY = 20


class EnemyKind(enum.Enum):
    """Enemy families; Goblins, Zombies and Demons interact with buildings."""

    BARBARIANS = 1
    GOBLINS = 2
    ORCS = 3
    ZOMBIES = 4
    DEMONS = 5
    DRAGONS = 6


@dataclass(frozen=True)
class BuildingFacts:
    gold: int
    wood: int
    stone: int
    vp: int
    battle: int
    """The battle modifier against ordinary enemies (see ``battle_modifier`` for the rest)."""


BUILDING_FACTS: dict[Building, BuildingFacts] = {
    Building.STATUE: BuildingFacts(2, 0, 0, 3, 0),
    Building.CHAPEL: BuildingFacts(3, 0, 1, 5, 0),
    Building.CHURCH: BuildingFacts(3, 1, 2, 7, 0),
    Building.CATHEDRAL: BuildingFacts(5, 0, 3, 9, 0),
    Building.INN: BuildingFacts(1, 1, 0, 0, 0),
    Building.MARKET: BuildingFacts(2, 2, 0, 1, 0),
    Building.FARMS: BuildingFacts(2, 3, 1, 2, -1),
    Building.MERCHANTS_GUILD: BuildingFacts(3, 1, 2, 4, 0),
    Building.GUARD_TOWER: BuildingFacts(1, 0, 1, 1, 1),
    Building.BLACKSMITH: BuildingFacts(1, 2, 0, 2, 1),
    Building.BARRACKS: BuildingFacts(2, 2, 1, 4, 0),
    Building.WIZARDS_GUILD: BuildingFacts(3, 2, 2, 6, 2),
    Building.PALISADE: BuildingFacts(0, 2, 0, 0, 1),
    Building.STABLES: BuildingFacts(1, 1, 1, 2, 0),
    Building.STONE_WALL: BuildingFacts(2, 0, 2, 2, 1),
    Building.FORTRESS: BuildingFacts(3, 0, 2, 4, 1),
    Building.BARRICADE: BuildingFacts(0, 1, 0, 0, 0),
    Building.CRANE: BuildingFacts(0, 1, 1, 1, 0),
    Building.TOWN_HALL: BuildingFacts(2, 1, 1, 2, 0),
    Building.EMBASSY: BuildingFacts(2, 2, 2, 4, 0),
}


# ``_value_`` is the member's value as stored: the rules ask a building's row and column
# thousands of times a search, and Enum's ``value`` property and ``Building(n)`` are slow calls.
_BUILDINGS = (None, *Building)
"""The buildings by number (0 holds none)."""
assert all(_BUILDINGS[building._value_] is building for building in Building), "numbered 1-20 in order"


def row_of(building: Building) -> int:
    """0 (religious) to 4 (civic)."""
    return (building._value_ - 1) // 4


def column_of(building: Building) -> int:
    """0 (column I) to 3 (column IV)."""
    return (building._value_ - 1) % 4


def left_neighbour(building: Building) -> Building | None:
    """The building that must be owned before this one, if any."""
    return None if column_of(building) == 0 else _BUILDINGS[building._value_ - 1]


def battle_modifier(building: Building, enemy: EnemyKind) -> int:
    """What the building adds to the combat value against this enemy family."""
    if building is Building.CHURCH and enemy is EnemyKind.DEMONS:
        return 1
    if building is Building.BARRICADE and enemy is EnemyKind.GOBLINS:
        return 1
    if building is Building.PALISADE and enemy is EnemyKind.ZOMBIES:
        return 2
    return BUILDING_FACTS[building].battle


ADVISOR_NAMES: tuple[str, ...] = (
    "Jester",
    "Squire",
    "Architect",
    "Merchant",
    "Sergeant",
    "Alchemist",
    "Astronomer",
    "Treasurer",
    "Master Hunter",
    "General",
    "Swordsmith",
    "Duchess",
    "Champion",
    "Smuggler",
    "Inventor",
    "Wizard",
    "Queen",
    "King",
)
"""Advisor ``n`` (1 to 18) is ``ADVISOR_NAMES[n - 1]``."""

JESTER, SQUIRE, ARCHITECT, MERCHANT, SERGEANT, ALCHEMIST, ASTRONOMER, TREASURER = range(1, 9)
MASTER_HUNTER, GENERAL, SWORDSMITH, DUCHESS, CHAMPION, SMUGGLER, INVENTOR = range(9, 16)
WIZARD, QUEEN, KING = 16, 17, 18


@dataclass(frozen=True)
class EnemyCard:
    """One enemy card: who attacks, how strong, and what winning or losing means."""

    year: int
    kind: EnemyKind
    strength: int
    reward_gold: int
    reward_wood: int
    reward_stone: int
    reward_goods_of_choice: int
    reward_vp: int
    loss_gold: int
    loss_wood: int
    loss_stone: int
    loss_goods_of_choice: int
    loss_building: bool
    loss_vp: int


def _card(year: int, kind: EnemyKind, strength: int, reward: str, loss: str) -> EnemyCard:
    """A card from compact text: 'g w s c vp' counts for the reward, plus a B flag for loss."""
    rg, rw, rs, rc, rv = (int(x) for x in reward.split())
    parts = loss.split()
    lg, lw, ls, lc, lv = (int(x) for x in parts[:5])
    return EnemyCard(year, kind, strength, rg, rw, rs, rc, rv, lg, lw, ls, lc, parts[-1] == "B", lv)


BAR, GOB, ORC, ZOM, DEM, DRA = (
    EnemyKind.BARBARIANS,
    EnemyKind.GOBLINS,
    EnemyKind.ORCS,
    EnemyKind.ZOMBIES,
    EnemyKind.DEMONS,
    EnemyKind.DRAGONS,
)
# reward: gold wood stone choice vp | loss: gold wood stone choice vp, then B if a building falls
ENEMIES: tuple[EnemyCard, ...] = (
    _card(1, BAR, 2, "1 0 0 0 0", "0 0 0 1 0 B"),
    _card(1, GOB, 2, "0 1 0 0 0", "0 1 1 0 1 B"),
    _card(1, GOB, 3, "0 0 1 0 0", "1 0 0 0 0 B"),
    _card(1, ORC, 3, "1 0 0 0 0", "0 0 0 2 1 -"),
    _card(1, ZOM, 4, "0 0 0 0 1", "0 0 0 0 2 -"),
    _card(2, GOB, 3, "0 1 0 0 0", "0 2 2 0 1 B"),
    _card(2, GOB, 4, "0 0 1 0 0", "2 0 0 0 0 B"),
    _card(2, ORC, 4, "1 0 0 0 0", "0 0 0 2 0 B"),
    _card(2, BAR, 5, "1 0 0 0 0", "0 0 0 2 1 -"),
    _card(2, ZOM, 5, "0 0 0 0 1", "0 0 0 0 2 -"),
    _card(3, GOB, 4, "0 1 0 0 0", "0 3 3 0 1 B"),
    _card(3, GOB, 5, "0 0 1 0 0", "3 0 0 0 0 B"),
    _card(3, ORC, 5, "1 0 0 0 0", "0 0 0 2 0 B"),
    _card(3, DEM, 6, "0 0 0 0 1", "2 1 1 0 1 -"),
    _card(3, ZOM, 6, "0 0 0 0 1", "0 0 0 0 2 -"),
    _card(4, GOB, 5, "0 1 0 0 0", "0 4 4 0 1 B"),
    _card(4, GOB, 6, "0 0 1 0 0", "4 0 0 0 0 B"),
    _card(4, DEM, 6, "1 0 0 0 0", "0 0 0 4 0 B"),
    _card(4, ORC, 7, "0 0 0 1 0", "0 0 0 2 0 B"),
    _card(4, ZOM, 7, "0 0 0 0 1", "0 0 0 0 2 -"),
    _card(5, BAR, 7, "0 0 0 0 1", "0 0 0 0 8 -"),
    _card(5, BAR, 8, "0 0 0 0 1", "0 0 0 0 0 B"),
    _card(5, DEM, 8, "0 0 0 0 2", "0 0 0 0 2 B"),
    _card(5, DEM, 9, "0 0 0 0 2", "0 0 0 0 0 B"),
    _card(5, DRA, 9, "0 0 0 0 3", "0 0 0 0 5 -"),
)

CARDS_PER_YEAR = 5
YEARS = 5


def cards_of_year(year: int) -> tuple[EnemyCard, ...]:
    return tuple(card for card in ENEMIES if card.year == year)
