"""The values a King's Road bot sees: cards, the one action, and the observation.

These mirror ``proto/kingmaker/kings_road/v1/kings_road.proto`` field by field.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Card(enum.Enum):
    """The eleven cards every player owns. Region cards carry their banner number as value."""

    ZIN_KAIS_DEEP = 1
    DRAGONS_LAIR = 2
    TEMPLE_RUINS = 3
    SAVAGE_HILLS = 4
    DARK_TOWER = 5
    WIZARDS_TOWER = 6
    KINGS_ALTAR = 7
    KINGS_CASTLE = 8
    KNIGHT = 9
    DRAGON = 10
    WITCH = 11

    @property
    def region(self) -> int | None:
        """The region a region card places a marker in; None for the three special cards."""
        return self.value if self.value <= 8 else None


REGION_CARDS: tuple[Card, ...] = tuple(card for card in Card if card.region is not None)


class Phase(enum.Enum):
    """What the seats in ``to_act`` are choosing."""

    CHOOSE_CARDS = 1
    """Every seat chooses its cards for the round, at once."""
    WITCH_RECHOOSE = 2
    """The seats that played the Witch choose again, at once, after everyone else resolved."""
    GAME_OVER = 3


@dataclass(frozen=True)
class PlayCards:
    """The cards a seat plays this round, in the order they are revealed.

    The legal actions list each distinct play once, in a canonical order: a Witch play is the
    Witch alone (the other two cards go back unrevealed and have no effect); otherwise the
    cards are in ascending card order, except that a Knight is always last and the card just
    before it is the one the Knight reinforces.
    """

    cards: tuple[Card, ...]


@dataclass(frozen=True)
class RegionView:
    """One region of the board."""

    number: int
    name: str
    values: tuple[int, ...]
    """Banner: points for first, second, third (and fourth) place."""
    markers: tuple[int, ...]
    """Influence markers (not nobles) of each seat in the region, indexed by seat."""
    nobles: tuple[int, ...]
    """The seats holding a noble here (at most one, except under Permanent Nobles)."""


@dataclass(frozen=True)
class PlayerView:
    """One seat's public position."""

    seat: int
    score: int
    supply: int
    """Influence markers in front of the player, free to place."""
    nobles: int
    """Nobles this seat has on the board (the first tie-break)."""
    has_dragon: bool
    has_witch: bool


@dataclass(frozen=True)
class Reveal:
    """The cards one seat revealed; a Witch play shows the Witch alone."""

    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class Observation:
    """What one seat knows. King's Road hides nothing at rest: see the package docstring."""

    seat: int
    players: int
    phase: Phase
    round: int
    """1 for the first round."""
    king_region: int
    """The region the King stands in: it scores at the end of this round."""
    permanent_nobles: bool
    regions: tuple[RegionView, ...]
    """All eight regions, in banner-number order 1 to 8."""
    standings: tuple[PlayerView, ...]
    """Every seat's public position, indexed by seat."""
    hand: tuple[Card, ...]
    """This seat's cards, ascending (every seat's hand is public: see the package docstring)."""
    cards_to_play: int
    """How many cards this seat must play now: three, or its supply if that is smaller."""
    revealed: tuple[Reveal, ...]
    """The cards revealed so far this round (seen by the Witch players as they re-choose)."""
    dragons: int
    """Dragons revealed so far this round: each adds one scored region."""
    last_revealed: tuple[Reveal, ...]
    """Every reveal of the previous round, Witch re-choices included."""
    last_scored: tuple[int, ...]
    """The regions scored at the end of the previous round (or in the final scoring), in order."""
