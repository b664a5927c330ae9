"""The Kingsville game state: turns, order execution, displays and the ends of ages.

A turn: the current player takes one of the six actions, then the people in their castle carry
out their orders from left to right. Steps without a role icon always happen; steps with a role
icon happen only if the person has that symbol; steps with a cost (an arrow) are optional, and
when the player can pay one the engine asks them (``ChooseOptional``). After the orders, both
displays are refilled from the current decks; if a display cannot be filled, the age ends.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from typing import ClassVar, Self

from kingmaker.games import rng as chance
from kingmaker.games.api import GameSpec, GameState, Result, RulesError, Seat, ranks_from_keys
from kingmaker.games.kingsville import scoring
from kingmaker.games.kingsville.actions import (
    BuildFarm,
    BuildTheatre,
    BuildWonder,
    ChooseOptional,
    KingsvilleAction,
    Recruit,
    TakeOrder,
    Upgrade,
)
from kingmaker.games.kingsville.board import RECRUIT_GOLD, UPGRADE_GOLD, Board, building_cost
from kingmaker.games.kingsville.cards import (
    CARDS,
    OrderCard,
    PersonType,
    Resources,
    WonderCard,
)
from kingmaker.games.kingsville.observation import (
    KingsvilleObservation,
    PendingStep,
    Phase,
    SupplyCount,
    player_view,
)

LAST_AGE = 3

# Actions are frozen values: each distinct one is built once and handed out again, which spares
# a dataclass __init__ per entry of every legal list and lets apply's legality check find the
# very object a player picked (``GameState.check_joint_action`` looks for identity first).
_BUILD_THEATRE = BuildTheatre()
_BUILD_FARM = BuildFarm()
_PERFORM = (ChooseOptional(True), ChooseOptional(False))
_recruit = functools.cache(Recruit)
_upgrade = functools.cache(Upgrade)
_build_wonder = functools.cache(BuildWonder)


@functools.cache
def _take_order_per_slot(name: str, slots: int) -> tuple[TakeOrder, ...]:
    """``TakeOrder(name, slot)`` for each slot, so a legal list picks them with ``map``."""
    return tuple(TakeOrder(name, slot) for slot in range(slots))


_RECRUITABLE = tuple(kind.person for kind in CARDS.people if not kind.advanced)
"""The basic people, in card-set order: who a Recruit may bring in (supply permitting)."""
_UPGRADES: dict[PersonType, tuple[PersonType, ...]] = {
    basic.person: tuple(
        kind.person
        for kind in CARDS.people
        if kind.advanced and set(basic.symbols).intersection(kind.symbols)
    )
    for basic in CARDS.people
    if not basic.advanced
}
"""For each basic person, the advanced people sharing a symbol with it, in card-set order."""


class KingsvilleState(GameState):
    spec: ClassVar[GameSpec]  # set in __init__.py, where the spec is declared

    def __init__(self, players: int, rng: chance.Rng) -> None:
        self._players = players
        self.rng = rng
        # Chance, in this order: the starting player, then each age's wonders and orders.
        self.starting_player = rng.randrange(players)
        self.future_wonders: list[list[WonderCard]] = []
        self.future_orders: list[list[OrderCard]] = []
        for age in range(1, LAST_AGE + 1):
            wonders = CARDS.wonder_deck(age, players)
            orders = CARDS.order_deck(age, players)
            chance.shuffle(rng, wonders)
            chance.shuffle(rng, orders)
            self.future_wonders.append(wonders)
            self.future_orders.append(orders)
        self.age = 0
        self.wonder_deck: list[WonderCard] = []
        self.order_deck: list[OrderCard] = []
        self.wonder_display: list[WonderCard] = []
        self.order_display: list[OrderCard] = []
        self.supply = {kind.person: kind.supply for kind in CARDS.people}
        self.boards = [Board.starting() for _ in range(players)]
        self.current = self.starting_player
        self.pending: tuple[int, int] | None = None
        """(slot, step index) of the optional step waiting for ``ChooseOptional``."""
        self.final_round = False
        self.over = False
        self._start_age()

    # --- the interface -------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self._players

    def to_act(self) -> tuple[Seat, ...]:
        return () if self.over else (self.current,)

    def legal_actions(self, seat: Seat) -> tuple[KingsvilleAction, ...]:
        if self.over or seat != self.current:
            return ()
        if self.pending is not None:
            return _PERFORM
        return self._turn_actions(self.boards[seat])

    def apply(self, actions: Mapping[Seat, KingsvilleAction]) -> None:
        self.check_joint_action(actions)
        action = actions[self.current]
        board = self.boards[self.current]
        if isinstance(action, ChooseOptional):
            assert self.pending is not None
            slot, index = self.pending
            self.pending = None
            if action.perform:
                step = self._order_at(board, slot).steps[index]
                board.pay(step.cost)
                board.gain(step.gain)
            self._carry_out_orders(board, slot, index + 1)
        else:
            self._take_turn_action(board, action)
            self._carry_out_orders(board, 0, 0)
        if self.pending is None:
            self._end_turn(board)

    def observation(self, seat: Seat) -> KingsvilleObservation:
        scores = scoring.final_scores(self.boards)
        pending = None
        if self.pending is not None:
            slot, index = self.pending
            order = self._order_at(self.boards[self.current], slot)
            pending = PendingStep(slot, order.name, index, order.steps[index])
        if self.over:
            phase = Phase.GAME_OVER
        else:
            phase = Phase.ACTION if self.pending is None else Phase.OPTIONAL_STEP
        return KingsvilleObservation(
            seat=seat,
            players=self._players,
            edition=CARDS.edition,
            age=self.age,
            final_round=self.final_round,
            phase=phase,
            current_player=self.current,
            starting_player=self.starting_player,
            pending=pending,
            wonder_display=tuple(self.wonder_display),
            order_display=tuple(self.order_display),
            wonders_in_deck=len(self.wonder_deck),
            orders_in_deck=len(self.order_deck),
            supply=tuple(SupplyCount(person, n) for person, n in self.supply.items()),
            castles=tuple(player_view(i, board, scores[i]) for i, board in enumerate(self.boards)),
        )

    def is_over(self) -> bool:
        return self.over

    def result(self) -> Result:
        if not self.over:
            raise RulesError("the game is not over")
        scores = scoring.final_scores(self.boards)
        keys: list[tuple[int, ...]] = [
            (score, scoring.tie_break(b)) for score, b in zip(scores, self.boards, strict=True)
        ]
        return Result(scores=tuple(scores), ranks=ranks_from_keys(keys))

    def clone(self) -> Self:
        """A faster copy than ``deepcopy``: cards are frozen, so only the lists are copied."""
        other = copy.copy(self)
        other.rng = copy.deepcopy(self.rng)
        other.future_wonders = [list(deck) for deck in self.future_wonders]
        other.future_orders = [list(deck) for deck in self.future_orders]
        # The current decks are the current age's entries of the future lists (same objects).
        other.wonder_deck = other.future_wonders[self.age - 1]
        other.order_deck = other.future_orders[self.age - 1]
        other.wonder_display = list(self.wonder_display)
        other.order_display = list(self.order_display)
        other.supply = dict(self.supply)
        other.boards = [board.copy() for board in self.boards]
        return other

    # --- the six actions -----------------------------------------------------------------

    def _turn_actions(self, board: Board) -> tuple[KingsvilleAction, ...]:
        slots = CARDS.castle_slots
        actions: list[KingsvilleAction] = []
        if board.theatres < slots and board.wood >= building_cost(board.theatres):
            actions.append(_BUILD_THEATRE)
        if board.farms < slots and board.wood >= building_cost(board.farms):
            actions.append(_BUILD_FARM)
        if board.gold >= RECRUIT_GOLD and board.empty_slot() is not None:
            for basic in _RECRUITABLE:
                if self.supply[basic] > 0:
                    actions.append(_recruit(basic))
        if board.gold >= UPGRADE_GOLD:
            for slot, person in enumerate(board.people):
                for into in self._upgrades_for(person):
                    actions.append(_upgrade(slot, into))
        occupied = [slot for slot, person in enumerate(board.people) if person is not None]
        for name in dict.fromkeys(card.name for card in self.order_display):
            actions += map(_take_order_per_slot(name, len(board.people)).__getitem__, occupied)
        for wonder in self.wonder_display:
            if board.can_pay(wonder.cost):
                actions.append(_build_wonder(wonder.name))
        return tuple(actions)

    def _upgrades_for(self, person: PersonType | None) -> list[PersonType]:
        """The advanced types a basic ``person`` may become: in supply, sharing a symbol."""
        if person is None or CARDS.kind(person).advanced:
            return []
        return [into for into in _UPGRADES[person] if self.supply[into] > 0]

    def _take_turn_action(self, board: Board, action: KingsvilleAction) -> None:
        if isinstance(action, BuildTheatre):
            board.pay(Resources(wood=building_cost(board.theatres)))
            board.theatres += 1
        elif isinstance(action, BuildFarm):
            board.pay(Resources(wood=building_cost(board.farms)))
            board.farms += 1
        elif isinstance(action, Recruit):
            slot = board.empty_slot()
            assert slot is not None
            board.pay(Resources(gold=RECRUIT_GOLD))
            self.supply[action.person] -= 1
            board.people[slot] = action.person
        elif isinstance(action, Upgrade):
            old = board.people[action.slot]
            assert old is not None
            board.pay(Resources(gold=UPGRADE_GOLD))
            self.supply[old] += 1  # the replaced person goes back to the supply
            self.supply[action.into] -= 1
            board.people[action.slot] = action.into  # keeps the slot's order
        elif isinstance(action, TakeOrder):
            card = next(c for c in self.order_display if c.name == action.order)
            self.order_display.remove(card)
            board.orders[action.slot] = card  # a replaced order is discarded
        elif isinstance(action, BuildWonder):
            wonder = next(w for w in self.wonder_display if w.name == action.wonder)
            board.pay(wonder.cost)
            self.wonder_display.remove(wonder)
            board.wonders.append(wonder)

    # --- orders ------------------------------------------------------------------------------

    @staticmethod
    def _order_at(board: Board, slot: int) -> OrderCard:
        order = board.orders[slot]
        assert order is not None
        return order

    def _carry_out_orders(self, board: Board, slot: int, index: int) -> None:
        """Carry out orders from (slot, step index) on; stop at a payable optional step."""
        for s in range(slot, CARDS.castle_slots):
            person, order = board.people[s], board.orders[s]
            if person is None or order is None:
                continue
            symbols = CARDS.kind(person).symbols
            for i in range(index if s == slot else 0, len(order.steps)):
                step = order.steps[i]
                if step.role is not None and step.role not in symbols:
                    continue
                if not step.optional:
                    board.gain(step.gain)
                elif board.can_pay(step.cost):
                    self.pending = (s, i)
                    return

    # --- end of turn, age and game -------------------------------------------------------------

    def _end_turn(self, board: Board) -> None:
        board.turns += 1
        if not self.final_round and not self._refill():
            self._end_age()
        if self.final_round and len({b.turns for b in self.boards}) == 1:
            self.over = True
            return
        self.current = (self.current + 1) % self._players

    def _refill(self) -> bool:
        """Refill both displays to players + 1 cards; False if a deck ran short."""
        size = self._players + 1
        while len(self.wonder_display) < size and self.wonder_deck:
            self.wonder_display.append(self.wonder_deck.pop())
        while len(self.order_display) < size and self.order_deck:
            self.order_display.append(self.order_deck.pop())
        return len(self.wonder_display) == size and len(self.order_display) == size

    def _end_age(self) -> None:
        for board in self.boards:
            scoring.end_of_age(board, self.supply)
        if self.age == LAST_AGE:
            self.final_round = True  # displays keep what is left for the rest of the round
        else:
            self._start_age()

    def _start_age(self) -> None:
        """Discard the old decks and displays, take the next age's, and deal the displays."""
        self.age += 1
        self.wonder_deck = self.future_wonders[self.age - 1]
        self.order_deck = self.future_orders[self.age - 1]
        self.wonder_display = []
        self.order_display = []
        self._refill()
