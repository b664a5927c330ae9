"""Kingsville rulebook, setup and turn sections: one test (or more) per sentence."""

from __future__ import annotations

import pytest
from kingsville_positions import (
    current,
    decline_optional_steps,
    new_state,
    order,
    play,
    seat_person,
    set_displays,
)

from kingmaker.games.api import RulesError
from kingmaker.games.kingsville.actions import (
    BuildFarm,
    BuildTheatre,
    BuildWonder,
    ChooseOptional,
    Recruit,
    TakeOrder,
    Upgrade,
)
from kingmaker.games.kingsville.cards import PersonType
from kingmaker.games.kingsville.observation import Phase
from kingmaker.games.kingsville.state import KingsvilleState
from kingmaker.games.rng import ScriptedRng

W, A, D, M = PersonType.WORKER, PersonType.ARTIST, PersonType.DIPLOMAT, PersonType.MERCHANT

# --- Setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "wonders", "orders"), [(2, 6, 10), (3, 9, 15), (4, 12, 20)])
def test_each_age_has_the_wonders_and_orders_of_the_setup_table(
    players: int, wonders: int, orders: int
) -> None:
    state = new_state(players)
    assert len(state.wonder_deck) + len(state.wonder_display) == wonders
    assert len(state.order_deck) + len(state.order_display) == orders
    for age in (2, 3):
        assert len(state.future_wonders[age - 1]) == wonders
        assert len(state.future_orders[age - 1]) == orders
        assert {card.age for card in state.future_orders[age - 1]} == {age}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_displays_show_one_more_age_i_card_than_players(players: int) -> None:
    state = new_state(players)
    assert len(state.wonder_display) == players + 1
    assert len(state.order_display) == players + 1
    assert {c.age for c in [*state.wonder_display, *state.order_display]} == {1}


def test_each_player_starts_with_a_farm_a_theatre_the_king_5_gold_and_5_wood() -> None:
    state = new_state(4)
    for board in state.boards:
        assert (board.farms, board.theatres, board.gold, board.wood) == (1, 1, 5, 5)
        assert board.people == [PersonType.KING, None, None, None, None]
        assert board.orders == [None] * 5


def test_the_starting_player_is_chosen_at_random() -> None:
    scripted = KingsvilleState(3, ScriptedRng([2] + [0] * 400))
    assert scripted.starting_player == 2
    assert scripted.to_act() == (2,)
    seen = {new_state(3, seed).starting_player for seed in range(30)}
    assert seen == {0, 1, 2}


def test_players_take_turns_clockwise_from_the_starting_player() -> None:
    state = new_state(3)
    first = state.current
    for step in range(1, 5):
        play(state, TakeOrder(state.order_display[0].name, 0))
        decline_optional_steps(state)  # an optional step belongs to the same turn
        assert state.current == (first + step) % 3


# --- The six actions --------------------------------------------------------------------------


def test_a_turn_must_be_one_of_the_six_actions() -> None:
    state = new_state(2)
    kinds = {type(a) for a in state.legal_actions(state.current)}
    assert kinds <= {BuildTheatre, BuildFarm, Recruit, Upgrade, TakeOrder, BuildWonder}
    assert TakeOrder in kinds  # the King can always take an order, so a turn is never stuck
    with pytest.raises(RulesError):
        play(state, ChooseOptional(True))


def test_a_theatre_costs_2_wood_plus_1_per_theatre_owned_and_fills_the_leftmost_slot() -> None:
    state = new_state(2)
    board = current(state)
    seat = state.current
    board.wood = 7
    play(state, BuildTheatre())  # owns 1: costs 3
    assert (board.wood, board.theatres) == (4, 2)
    assert [s.has_theatre for s in state.observation(seat).castles[seat].slots] == [
        True,
        True,
        False,
        False,
        False,
    ]
    play(state, BuildTheatre())  # the other player
    board.wood = 3  # owns 2: costs 4
    assert BuildTheatre() not in state.legal_actions(seat)
    board.wood, board.theatres = 50, 5
    assert BuildTheatre() not in state.legal_actions(seat)  # no slot left


def test_a_farm_costs_2_wood_plus_1_per_farm_owned_and_fills_the_leftmost_slot() -> None:
    state = new_state(2)
    board = current(state)
    seat = state.current
    board.farms, board.wood = 3, 5  # owns 3: costs 5
    play(state, BuildFarm())
    assert (board.wood, board.farms) == (0, 4)
    assert [s.has_farm for s in state.observation(seat).castles[seat].slots] == [
        True,
        True,
        True,
        True,
        False,
    ]
    play(state, BuildFarm())
    board.wood = 5  # owns 4: costs 6
    assert BuildFarm() not in state.legal_actions(seat)


def test_recruiting_costs_5_gold_for_any_basic_type_still_available() -> None:
    state = new_state(2)
    board, seat = current(state), state.current
    recruits = [a for a in state.legal_actions(seat) if isinstance(a, Recruit)]
    assert recruits == [Recruit(W), Recruit(A), Recruit(D), Recruit(M)]
    state.supply[W] = 0
    assert Recruit(W) not in state.legal_actions(seat)
    play(state, Recruit(D))
    assert board.gold == 0
    assert board.people[1] is D
    assert state.supply[D] == 3
    board.gold = 4
    play(state, BuildFarm())
    assert not [a for a in state.legal_actions(seat) if isinstance(a, Recruit)]


def test_no_recruit_without_an_empty_slot() -> None:
    state = new_state(2)
    board = current(state)
    for slot in range(1, 5):
        seat_person(board, slot, W, None)
    board.gold = 50
    assert not [a for a in state.legal_actions(state.current) if isinstance(a, Recruit)]


def test_upgrading_costs_10_gold_and_the_new_person_shares_a_symbol() -> None:
    state = new_state(2)
    board, seat = current(state), state.current
    seat_person(board, 1, W, "Woodcutter")
    board.gold = 10
    upgrades = [a for a in state.legal_actions(seat) if isinstance(a, Upgrade)]
    # A worker (TOOLS) may become an architect (TOOLS+ARTS) or a squire (TOOLS+DIPLOMACY),
    # not a trader (TRADE+DIPLOMACY); the King is not basic and cannot be upgraded.
    assert upgrades == [Upgrade(1, PersonType.ARCHITECT), Upgrade(1, PersonType.SQUIRE)]
    play(state, Upgrade(1, PersonType.SQUIRE))
    assert board.people[1] is PersonType.SQUIRE
    assert board.gold == 0
    assert board.orders[1] == order("Woodcutter")  # the order stays with the slot
    assert state.supply[W] == 5
    assert state.supply[PersonType.SQUIRE] == 2


def test_no_upgrade_into_a_type_with_none_left() -> None:
    state = new_state(2)
    board = current(state)
    seat_person(board, 1, M, None)  # a merchant can only become a trader
    board.gold = 10
    state.supply[PersonType.TRADER] = 0
    assert not [a for a in state.legal_actions(state.current) if isinstance(a, Upgrade)]


def test_an_order_from_the_display_goes_to_a_person_and_may_replace_one() -> None:
    state = new_state(2, seed=3)
    board, seat = current(state), state.current
    set_displays(state, orders=["Forager", "Woodcutter", "Envoy"])
    takes = [a for a in state.legal_actions(seat) if isinstance(a, TakeOrder)]
    assert {a.slot for a in takes} == {0}  # only slots with a person
    deck = len(state.order_deck)
    play(state, TakeOrder("Forager", 0))
    assert board.orders[0] == order("Forager")
    assert [c.name for c in state.order_display[:2]] == ["Woodcutter", "Envoy"]
    assert len(state.order_display) == 3
    assert len(state.order_deck) == deck - 1
    play(state, TakeOrder(state.order_display[0].name, 0))  # the other player
    decline_optional_steps(state)
    set_displays(state, orders=["Woodcutter", "Envoy", "Minstrel"])
    play(state, TakeOrder("Woodcutter", 0))
    assert board.orders[0] == order("Woodcutter")  # Forager was replaced and discarded


def test_building_a_wonder_pays_its_cost_and_takes_no_slot() -> None:
    state = new_state(2)
    board, seat = current(state), state.current
    set_displays(state, wonders=["Granary", "Monument", "Watchtower"])
    board.gold, board.wood = 3, 3
    legal = state.legal_actions(seat)
    assert BuildWonder("Granary") in legal
    assert BuildWonder("Watchtower") in legal
    assert BuildWonder("Monument") not in legal  # needs 4 gold
    slots_before = list(board.people)
    play(state, BuildWonder("Granary"))
    assert (board.gold, board.wood) == (1, 0)
    assert [w.name for w in board.wonders] == ["Granary"]
    assert board.people == slots_before
    assert "Granary" not in [w.name for w in state.wonder_display]


# --- Carrying out orders --------------------------------------------------------------------


def test_people_carry_out_their_orders_from_left_to_right() -> None:
    state = new_state(2)
    board = current(state)
    seat_person(board, 0, PersonType.KING, "Pedlar")  # optional: pay 1 wood for 2 gold
    seat_person(board, 1, W, "Woodcutter")  # +1 wood, +1 more for TOOLS
    board.gold, board.wood = 5, 3
    play(state, BuildFarm())  # pays 3 wood: none left when the King's Pedlar comes first
    assert state.pending is None
    assert (board.gold, board.wood) == (6, 2)  # King's TRADE +1 gold; the worker's 2 wood


def test_the_order_to_the_left_can_feed_the_one_to_the_right() -> None:
    state = new_state(2)
    board, seat = current(state), state.current
    seat_person(board, 0, PersonType.KING, "Woodcutter")
    seat_person(board, 1, M, "Pedlar")
    board.wood = 3
    play(state, BuildFarm())  # wood 0, then the King's Woodcutter gives 2
    assert state.current == seat
    assert state.pending == (1, 0)
    obs = state.observation(seat)
    assert obs.phase is Phase.OPTIONAL_STEP
    assert obs.pending is not None
    assert obs.pending.order == "Pedlar"
    assert obs.pending.slot == 1
    assert state.legal_actions(seat) == (ChooseOptional(True), ChooseOptional(False))
    play(state, ChooseOptional(True))
    assert (board.gold, board.wood) == (5 + 2 + 1, 1)
    assert state.current != seat  # the turn ended after the last order


def test_a_step_with_a_role_icon_needs_that_symbol() -> None:
    state = new_state(2)
    board = current(state)
    seat_person(board, 1, A, "Woodcutter")
    seat_person(board, 2, W, "Woodcutter")
    board.wood = 3
    play(state, BuildFarm())
    assert board.wood == 0 + 1 + 2  # the artist lacks TOOLS, the worker has it


def test_an_arrow_step_is_optional_and_its_cost_is_paid_first() -> None:
    for perform in (True, False):
        state = new_state(2)
        board = current(state)
        seat_person(board, 1, A, "Barter")  # +1 gold; optional: 2 wood -> 3 gold
        board.gold, board.wood = 0, 5
        play(state, BuildFarm())  # wood 2 left: Barter can be paid
        play(state, ChooseOptional(perform))
        assert (board.gold, board.wood) == ((4, 0) if perform else (1, 2))


def test_an_arrow_step_that_cannot_be_paid_is_skipped_without_asking() -> None:
    state = new_state(2)
    board, seat = current(state), state.current
    seat_person(board, 1, A, "Barter")
    board.gold, board.wood = 0, 4
    play(state, BuildFarm())  # 1 wood left: cannot pay 2
    assert state.pending is None
    assert state.current != seat
    assert (board.gold, board.wood) == (1, 1)


def test_a_person_without_an_order_does_nothing() -> None:
    state = new_state(2)
    board = current(state)
    seat_person(board, 1, W, None)
    board.gold, board.wood = 0, 3
    play(state, BuildFarm())
    assert (board.gold, board.wood, board.points) == (0, 0, 0)
