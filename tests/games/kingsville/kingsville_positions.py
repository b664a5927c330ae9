"""Helpers that build Kingsville positions for the tests: a seeded game, then hand-set fields."""

from __future__ import annotations

from kingmaker.games.kingsville.actions import ChooseOptional, KingsvilleAction
from kingmaker.games.kingsville.board import Board
from kingmaker.games.kingsville.cards import CARDS, OrderCard, PersonType, WonderCard
from kingmaker.games.kingsville.state import KingsvilleState
from kingmaker.games.rng import SeededRng


def new_state(players: int = 2, seed: int = 0) -> KingsvilleState:
    return KingsvilleState(players, SeededRng(seed))


def order(name: str) -> OrderCard:
    return CARDS.order_named(name)


def wonder(name: str) -> WonderCard:
    return CARDS.wonder_named(name)


def play(state: KingsvilleState, action: KingsvilleAction) -> None:
    """The current player plays ``action``."""
    state.apply({state.current: action})


def decline_optional_steps(state: KingsvilleState) -> None:
    """Finish the current turn by refusing every optional order step still to come."""
    while state.pending is not None:
        state.apply({state.current: ChooseOptional(False)})


def current(state: KingsvilleState) -> Board:
    return state.boards[state.current]


def set_displays(
    state: KingsvilleState, orders: list[str] | None = None, wonders: list[str] | None = None
) -> None:
    if orders is not None:
        state.order_display = [order(name) for name in orders]
    if wonders is not None:
        state.wonder_display = [wonder(name) for name in wonders]


def seat_person(board: Board, slot: int, person: PersonType, order_name: str | None) -> None:
    board.people[slot] = person
    board.orders[slot] = order(order_name) if order_name else None
