"""What a seat sees: the observation dataclasses (mirrored by ``kingsburg.proto``).

Everything here is public except ``Observation.enemy`` before winter, which only a seat that
influenced the General or the Queen this year sees (see ``observation.py``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from kingmaker.games.kingsburg.data import Building, EnemyCard


class Phase(enum.Enum):
    """The eight phases of a year, and the end of the game."""

    KINGS_AID = 1
    SPRING = 2
    KINGS_REWARD = 3
    SUMMER = 4
    KINGS_ENVOY = 5
    AUTUMN = 6
    RECRUITMENT = 7
    WINTER = 8
    GAME_OVER = 9


class Decision(enum.Enum):
    """What the seats in ``Observation.acting`` are deciding."""

    NONE = 1
    AID_GOOD = 2
    REROLL = 3
    INFLUENCE = 4
    GIFT = 5
    CONSTRUCT = 6
    TOWN_HALL = 7
    RECRUIT = 8
    BATTLE_REWARD = 9
    BATTLE_LOSS = 10


@dataclass(frozen=True)
class DiceGroup:
    """Dice placed on an advisor: ``owner`` is a seat, or -1 for the neutral 2-player dice."""

    owner: int
    coloured: tuple[int, ...]
    white: tuple[int, ...]
    plus_two: bool


@dataclass(frozen=True)
class AdvisorSpace:
    """One of the 18 advisors (1 Jester ... 18 King) and the groups influencing it."""

    advisor: int
    groups: tuple[DiceGroup, ...]


@dataclass(frozen=True)
class ProvinceView:
    """A player's public holdings."""

    seat: int
    gold: int
    wood: int
    stone: int
    vp: int
    soldiers: int
    plus_two: int
    buildings: tuple[Building, ...]
    coloured_dice: tuple[int, ...]
    """Coloured dice rolled this season and not yet placed."""
    white_dice: tuple[int, ...]
    aid_die: bool
    passed: bool
    statue_used: bool
    chapel_used: bool
    market_used: bool
    town_hall_used: bool
    builds_this_season: int
    peeked_this_year: bool
    """Whether this player looked at this year's enemy (public: the General/Queen are visible)."""


@dataclass(frozen=True)
class Observation:
    seat: int
    players: int
    year: int
    """1 to 5."""
    phase: Phase
    decision: Decision
    acting: tuple[int, ...]
    gift_advisor: int
    """The advisor whose gift is being chosen (decision GIFT), else 0."""
    turn_order: tuple[int, ...]
    """Seats, first player first."""
    provinces: tuple[ProvinceView, ...]
    court: tuple[AdvisorSpace, ...]
    envoy_holder: int
    """The seat holding the King's Envoy token, or -1."""
    king_die: int
    """The King's reinforcement die of the latest winter, 0 before the first battle."""
    enemy: EnemyCard | None
    """This year's enemy: public once revealed in winter; before that only if you peeked."""
    past_enemies: tuple[EnemyCard, ...]
    """The enemies of the years already fought."""
