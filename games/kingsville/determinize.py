"""A Kingsville state built from one seat's observation, for search bots (``Game.determinize``).

Kingsville has no per-seat secrets; only the order of the undrawn decks is unknown. This age's
decks hold the age's cards less those in view (displays, castles), dealt at random to the sizes
the observation gives; later ages' decks are whole and shuffled.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TypeVar

from kingmaker.games.api import Action, GameState, Observation
from kingmaker.games.kingsville.board import Board
from kingmaker.games.kingsville.cards import CARDS
from kingmaker.games.kingsville.observation import Phase
from kingmaker.games.kingsville.state import KingsvilleState
from kingmaker.games.rng import SeededRng

Card = TypeVar("Card")


def determinize(observation: Observation, legal: tuple[Action, ...], seed: int) -> GameState:
    """A state ``observation`` could come from, the undrawn decks dealt with ``seed``."""
    del legal
    view = observation
    chooser = random.Random(seed)
    players = view.players
    state = KingsvilleState(players, SeededRng(chooser.randrange(2**62)))
    state.starting_player = view.starting_player
    state.current = view.current_player
    state.age = view.age
    state.final_round = view.final_round
    state.over = view.phase is Phase.GAME_OVER
    state.pending = None if view.pending is None else (view.pending.slot, view.pending.step_index)
    state.wonder_display = list(view.wonder_display)
    state.order_display = list(view.order_display)
    state.supply = {count.person: count.available for count in view.supply}
    state.boards = [
        Board(
            gold=castle.gold,
            wood=castle.wood,
            points=castle.points,
            farms=castle.farms,
            theatres=castle.theatres,
            people=[slot.person for slot in castle.slots],
            orders=[slot.order for slot in castle.slots],
            wonders=list(castle.wonders),
            turns=castle.turns_taken,
        )
        for castle in view.castles
    ]
    in_view_orders = [*view.order_display, *(s.order for c in view.castles for s in c.slots if s.order)]
    in_view_wonders = [*view.wonder_display, *(w for c in view.castles for w in c.wonders)]
    age = max(view.age, 1)
    # The current decks are the current age's entries of the future lists, as in a dealt game
    # (``clone`` relies on it: a deck set apart from them was lost at the first clone).
    state.order_deck = _deal(CARDS.order_deck(age, players), in_view_orders, view.orders_in_deck, chooser)
    state.wonder_deck = _deal(CARDS.wonder_deck(age, players), in_view_wonders, view.wonders_in_deck, chooser)
    state.future_orders[age - 1] = state.order_deck
    state.future_wonders[age - 1] = state.wonder_deck
    # Later ages' decks: the constructor above shuffled them whole with a generator from ``seed``.
    return state


def _deal(deck: Sequence[Card], in_view: Iterable[Card], size: int, chooser: random.Random) -> list[Card]:
    """``size`` cards of ``deck`` not in view, in random order (topped up from the deck if short)."""
    left = Counter(deck)
    left.subtract(in_view)
    pool = list((+left).elements())
    chooser.shuffle(pool)
    if len(pool) < size:
        extra = list(deck)
        chooser.shuffle(extra)
        pool.extend(extra[: size - len(pool)])
    return pool[:size]
