"""Every decision a Kingsburg seat can be asked for, as an action dataclass.

Which of these a seat may play is given by ``legal_actions``; the observation's ``decision``
says what is being decided. ``Pass`` ends any optional or repeated step (no more re-rolls,
no more influence this season, no (more) building, decline the Alchemist or the Town Hall,
stop recruiting).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from kingmaker.games.kingsburg.data import Building, Good


class Offering(enum.Enum):
    """What a Town Hall owner gives up for its 1 VP."""

    PLUS_TWO = 1
    GOLD = 2
    WOOD = 3
    STONE = 4


@dataclass(frozen=True)
class ChooseGood:
    """The King's aid when several players tie: take one good of this kind."""

    good: Good


@dataclass(frozen=True)
class UseStatue:
    """Statue: all your dice show one number; re-roll one of them (a white one if ``white``)."""

    white: bool


@dataclass(frozen=True)
class UseChapel:
    """Chapel: your dice total 7 or less; re-roll all of them."""


@dataclass(frozen=True)
class Influence:
    """Place a dice group on an advisor.

    ``coloured`` and ``white`` are the face values of the dice used (ascending); the sum plus
    2 if ``plus_two`` plus ``market`` (-1, 0 or +1, Market owners only) equals ``advisor``.
    ``envoy`` spends the King's Envoy to join an advisor that already holds a group."""

    advisor: int
    coloured: tuple[int, ...]
    white: tuple[int, ...]
    plus_two: bool
    market: int
    envoy: bool


@dataclass(frozen=True)
class Pass:
    """Stop or decline: see the module docstring."""


@dataclass(frozen=True)
class TakeGoods:
    """A gift or reward of your choice: take exactly these goods."""

    gold: int
    wood: int
    stone: int


@dataclass(frozen=True)
class TradeGood:
    """Alchemist: give back one good of this kind, take one of each of the other two kinds."""

    give: Good


@dataclass(frozen=True)
class Construct:
    """Build this building, paying its cost (a second one this season spends the Envoy)."""

    building: Building


@dataclass(frozen=True)
class UseTownHall:
    """Town Hall, once a season: give up a "+2" token or one good for 1 VP."""

    offering: Offering


@dataclass(frozen=True)
class Recruit:
    """Phase 7: hire one soldier, paying these goods (two, or one with the Barracks)."""

    gold: int
    wood: int
    stone: int


@dataclass(frozen=True)
class LoseGoods:
    """A lost battle takes goods of your choice: give up exactly these."""

    gold: int
    wood: int
    stone: int


ACTION_TYPES: tuple[type, ...] = (
    ChooseGood,
    UseStatue,
    UseChapel,
    Influence,
    Pass,
    TakeGoods,
    TradeGood,
    Construct,
    UseTownHall,
    Recruit,
    LoseGoods,
)
