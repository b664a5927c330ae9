"""The actions of Kingsville.

A turn is one of the six actions of the rulebook (``BuildTheatre``, ``BuildFarm``, ``Recruit``,
``Upgrade``, ``TakeOrder``, ``BuildWonder``), then the orders of the player's people are carried
out left to right. Whenever an optional order step (one with an arrow) can be paid, the engine
stops and asks the same player ``ChooseOptional``: pay the cost and take the gain, or skip it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kingmaker.games.kingsville.cards import PersonType


@dataclass(frozen=True)
class BuildTheatre:
    """Pay 2 wood + 1 per theatre owned; the theatre goes in the left-most slot without one."""


@dataclass(frozen=True)
class BuildFarm:
    """Pay 2 wood + 1 per farm owned; the farm goes in the left-most slot without one."""


@dataclass(frozen=True)
class Recruit:
    """Pay 5 gold for a basic person from the supply; it goes in the left-most empty slot."""

    person: PersonType


@dataclass(frozen=True)
class Upgrade:
    """Pay 10 gold to replace the basic person in ``slot`` by an advanced one sharing a symbol."""

    slot: int
    into: PersonType


@dataclass(frozen=True)
class TakeOrder:
    """Take the order named ``order`` from the display and give it to the person in ``slot``."""

    order: str
    slot: int


@dataclass(frozen=True)
class BuildWonder:
    """Pay the cost of the wonder named ``wonder`` on the display and add it to the castle."""

    wonder: str


@dataclass(frozen=True)
class ChooseOptional:
    """Answer the pending optional order step: ``perform`` pays its cost and takes its gain."""

    perform: bool


TurnAction = BuildTheatre | BuildFarm | Recruit | Upgrade | TakeOrder | BuildWonder
KingsvilleAction = TurnAction | ChooseOptional
ACTION_TYPES: tuple[type, ...] = (
    BuildTheatre,
    BuildFarm,
    Recruit,
    Upgrade,
    TakeOrder,
    BuildWonder,
    ChooseOptional,
)
