"""What a seat sees. Kingsville has no per-seat secrets: every castle, purse and display is
public. Only the order of the undrawn decks is unknown (to everyone), so the observation gives
deck sizes; their contents follow from the card set and the cards already seen.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

from kingmaker.games.api import GameState
from kingmaker.games.kingsville.board import Board
from kingmaker.games.kingsville.cards import (
    CARDS,
    OrderCard,
    PersonType,
    Step,
    Symbol,
    WonderCard,
)


class Phase(enum.Enum):
    """What the player to act is deciding."""

    ACTION = 1
    """One of the six turn actions."""
    OPTIONAL_STEP = 2
    """Whether to pay for the pending optional order step."""
    GAME_OVER = 3


@dataclass(frozen=True)
class Slot:
    """One castle slot: theatre above, person with their order, farm below."""

    index: int
    has_theatre: bool
    person: PersonType | None
    symbols: tuple[Symbol, ...]
    """The person's symbols (empty without a person)."""
    order: OrderCard | None
    has_farm: bool


@dataclass(frozen=True)
class PlayerView:
    """One player's castle and purse."""

    seat: int
    gold: int
    wood: int
    points: int
    """Points scored so far during play (end-of-age penalties and gains included)."""
    farms: int
    theatres: int
    slots: tuple[Slot, ...]
    wonders: tuple[WonderCard, ...]
    turns_taken: int
    score_if_ended_now: int
    """The final score this player would have if the game ended now."""


@dataclass(frozen=True)
class SupplyCount:
    """How many people of one type are left in the common supply."""

    person: PersonType
    available: int


@dataclass(frozen=True)
class PendingStep:
    """The optional order step the acting player must accept or refuse."""

    slot: int
    order: str
    step_index: int
    step: Step


@dataclass(frozen=True)
class KingsvilleObservation:
    seat: int
    """The seat this observation is for."""
    players: int
    edition: str
    age: int
    """The current age, 1 to 3."""
    final_round: bool
    """Age III has ended; the round is being finished so everyone has had equal turns."""
    phase: Phase
    current_player: int
    starting_player: int
    pending: PendingStep | None
    wonder_display: tuple[WonderCard, ...]
    order_display: tuple[OrderCard, ...]
    wonders_in_deck: int
    orders_in_deck: int
    supply: tuple[SupplyCount, ...]
    castles: tuple[PlayerView, ...]
    """Every player's castle, by seat."""


def slot_views(board: Board) -> tuple[Slot, ...]:
    slots = []
    for i, person in enumerate(board.people):
        symbols = CARDS.kind(person).symbols if person is not None else ()
        slots.append(Slot(i, i < board.theatres, person, symbols, board.orders[i], i < board.farms))
    return tuple(slots)


def player_view(seat: int, board: Board, score: int) -> PlayerView:
    return PlayerView(
        seat=seat,
        gold=board.gold,
        wood=board.wood,
        points=board.points,
        farms=board.farms,
        theatres=board.theatres,
        slots=slot_views(board),
        wonders=tuple(board.wonders),
        turns_taken=board.turns,
        score_if_ended_now=score,
    )


def spectator_view(state: GameState) -> KingsvilleObservation:
    """What a spectator sees: everything a seat does (Kingsville has no seat's secrets), for no seat."""
    view: KingsvilleObservation = state.observation(0)
    return dataclasses.replace(view, seat=-1)
