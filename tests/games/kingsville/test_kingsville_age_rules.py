"""Kingsville rulebook, end of turn, end of age and end of game: one test per sentence."""

from __future__ import annotations

from kingsville_positions import (
    current,
    decline_optional_steps,
    new_state,
    order,
    play,
    seat_person,
    wonder,
)

from kingmaker.games.kingsville import scoring
from kingmaker.games.kingsville.actions import BuildFarm, BuildWonder, TakeOrder
from kingmaker.games.kingsville.cards import PersonType
from kingmaker.games.kingsville.state import KingsvilleState

W, A = PersonType.WORKER, PersonType.ARTIST


def take_first_order(state: KingsvilleState) -> None:
    """The current player gives the King the first order, made a Forager (no points, no choice)."""
    state.order_display[0] = order("Forager")
    play(state, TakeOrder("Forager", 0))
    decline_optional_steps(state)


def end_age_by_emptying_the_order_deck(state: KingsvilleState) -> None:
    state.order_deck.clear()
    take_first_order(state)


# --- End of turn ------------------------------------------------------------------------------


def test_after_the_orders_both_displays_are_refilled() -> None:
    state = new_state(3)
    current(state).gold, current(state).wood = 20, 20
    wonders, orders = len(state.wonder_deck), len(state.order_deck)
    play(state, BuildWonder(state.wonder_display[0].name))
    decline_optional_steps(state)
    take_first_order(state)
    assert len(state.wonder_display) == len(state.order_display) == 4
    assert (len(state.wonder_deck), len(state.order_deck)) == (wonders - 1, orders - 1)
    assert state.age == 1


def test_the_age_ends_when_the_order_deck_cannot_refill_its_display() -> None:
    state = new_state(2)
    mover = state.current
    end_age_by_emptying_the_order_deck(state)
    assert state.age == 2
    # The Age I decks are discarded; the Age II decks fill both displays at once.
    assert [c.age for c in state.order_display] == [2, 2, 2]
    assert [c.age for c in state.wonder_display] == [2, 2, 2]
    assert (len(state.wonder_deck), len(state.order_deck)) == (6 - 3, 10 - 3)
    assert state.current == (mover + 1) % 2  # the following player takes their turn as normal


def test_the_age_ends_when_the_wonder_deck_cannot_refill_its_display() -> None:
    state = new_state(2)
    state.wonder_deck.clear()
    current(state).gold, current(state).wood = 20, 20
    play(state, BuildWonder(state.wonder_display[0].name))
    assert state.age == 2


def test_an_empty_deck_does_not_end_the_age_while_its_display_is_full() -> None:
    state = new_state(2)
    state.order_deck.clear()
    current(state).wood = 3
    play(state, BuildFarm())  # took no card: nothing to refill
    assert state.age == 1


# --- End of the age ---------------------------------------------------------------------------


def test_end_of_age_penalties_losses_and_wonder_benefits() -> None:
    state = new_state(2)
    board = state.boards[0]
    board.theatres, board.farms = 1, 2
    seat_person(board, 1, W, "Woodcutter")  # farm, no theatre: -5
    seat_person(board, 2, A, "Minstrel")  # no farm, no theatre: -5, then lost with the order
    board.wonders = [wonder("Granary"), wonder("Shrine")]  # +2 wood, +1 point
    wood, artists = board.wood, state.supply[A]
    scoring.end_of_age(board, state.supply)
    assert board.points == -10 + 1
    assert board.people[:3] == [PersonType.KING, W, None]
    assert board.orders[2] is None
    assert board.orders[1] is not None
    assert state.supply[A] == artists + 1
    assert board.wood == wood + 2


def test_the_end_of_age_happens_for_every_player_when_the_age_ends() -> None:
    state = new_state(3)
    for board in state.boards:
        seat_person(board, 1, W, None)
    end_age_by_emptying_the_order_deck(state)
    assert [b.points for b in state.boards] == [-5, -5, -5]
    assert all(b.people[1] is None for b in state.boards)


def test_a_wonder_gives_its_benefit_at_every_end_of_age_after_it_is_built() -> None:
    state = new_state(2)
    board = state.boards[0]
    board.wonders = [wonder("Shrine")]  # +1 point per end of age
    end_age_by_emptying_the_order_deck(state)
    end_age_by_emptying_the_order_deck(state)
    assert state.age == 3
    assert board.points == 2


# --- End of Age III and of the game --------------------------------------------------------


def reach_age_iii(players: int, seed: int = 0) -> KingsvilleState:
    state = new_state(players, seed)
    end_age_by_emptying_the_order_deck(state)
    end_age_by_emptying_the_order_deck(state)
    assert state.age == 3
    return state


def test_after_age_iii_the_round_finishes_so_all_have_equal_turns() -> None:
    state = reach_age_iii(3)
    # Make the player after the starting player end Age III: two more turns must follow... or
    # as many as it takes for everyone to have had the same number of turns.
    while state.current != (state.starting_player + 1) % 3:
        take_first_order(state)
    board = current(state)
    seat_person(board, 1, W, None)  # no theatre, no farm: end-of-age effects at once
    end_age_by_emptying_the_order_deck(state)
    assert state.final_round
    assert not state.is_over()
    assert board.points == -5
    assert board.people[1] is None
    turns = [b.turns for b in state.boards]
    assert max(turns) - min(turns) == 1
    take_first_order(state)  # the last player of the round
    assert state.is_over()
    assert len({b.turns for b in state.boards}) == 1
    assert board.points == -5  # the end of Age III effects happened once


def test_the_game_ends_at_once_if_age_iii_ends_on_the_last_turn_of_a_round() -> None:
    state = reach_age_iii(2)
    while state.current != (state.starting_player + 1) % 2:
        take_first_order(state)
    end_age_by_emptying_the_order_deck(state)
    assert state.is_over()
    assert state.to_act() == ()


def test_the_final_round_plays_on_with_the_cards_left_in_the_displays() -> None:
    state = reach_age_iii(4)
    while state.current != state.starting_player:
        take_first_order(state)
    end_age_by_emptying_the_order_deck(state)
    left = len(state.order_display)
    assert left == 4  # one gap, no deck to fill it
    take_first_order(state)
    assert len(state.order_display) == left - 1


def test_final_scoring() -> None:
    state = new_state(3)
    a, b, c = state.boards
    a.farms, b.farms, c.farms = 3, 3, 2  # a and b share the most farms: 10 each
    a.theatres, b.theatres, c.theatres = 1, 2, 4  # c alone has the most theatres
    a.wonders = [wonder("Granary"), wonder("Shrine"), wonder("Royal Granaries")]
    a.points = 7
    seat_person(a, 1, W, None)
    seat_person(a, 2, PersonType.TRADER, None)
    scores = scoring.final_scores(state.boards)
    #   points + farms + wonders 4+5+6 + Royal Granaries 2 x 3 farms + King 10, worker 5, trader 10
    assert scores[0] == 7 + 10 + 15 + 6 + 25
    assert scores[1] == 10 + 10  # farms bonus and the King
    assert scores[2] == 10 + 10  # theatres bonus and the King


def test_every_age_iii_special_counts_what_it_names() -> None:
    state = new_state(2)
    board = state.boards[0]
    board.farms, board.theatres = 2, 3
    seat_person(board, 1, W, "Woodcutter")
    seat_person(board, 2, PersonType.ARCHITECT, None)
    names = ["Grand Cathedral", "Palace", "Hall of Nations", "Pantheon", "Academy", "Colossus"]
    board.wonders = [wonder(name) for name in names]
    # theatres 2x3, advanced (King, architect) 3x2, people 2x3, wonders 2x6, orders 2x1, flat 9
    assert scoring.special_points(board) == 6 + 6 + 6 + 12 + 2 + 9


def test_ties_go_to_the_most_leftover_resources_then_are_shared() -> None:
    state = reach_age_iii(3)
    state.over = True
    for board in state.boards:
        board.points, board.farms, board.theatres = 0, 1, 1
        board.people = [PersonType.KING, None, None, None, None]
        board.wonders = []
    state.boards[0].gold, state.boards[0].wood = 2, 2
    state.boards[1].gold, state.boards[1].wood = 0, 5
    state.boards[2].gold, state.boards[2].wood = 4, 1
    result = state.result()
    assert len(set(result.scores)) == 1
    assert result.ranks == (3, 1, 1)
