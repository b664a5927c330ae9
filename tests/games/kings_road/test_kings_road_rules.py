"""Each rule of King's Road shown enforced, one sentence of the rulebook at a time."""

from __future__ import annotations

import pytest

from kingmaker.games.api import RulesError
from kingmaker.games.kings_road import GAME, Card, KingsRoadState, Phase, PlayCards, Reveal
from kingmaker.games.kings_road.board import Board
from kingmaker.games.kings_road.data import REGIONS, ROUTE
from kingmaker.games.kings_road.scoring import noble_chain, place_points, score_region

C = Card
ELSEWHERE = PlayCards((C.ZIN_KAIS_DEEP, C.SAVAGE_HILLS, C.WIZARDS_TOWER))


def put(board: Board, region: int, counts: list[int]) -> None:
    for seat, count in enumerate(counts):
        for _ in range(count):
            board.place(seat, region)


def everyone(state: KingsRoadState, play: PlayCards) -> dict[int, PlayCards]:
    return dict.fromkeys(state.to_act(), play)


# Setup


def test_setup_gives_twenty_markers_eleven_cards_and_puts_the_king_in_zin_kais_deep() -> None:
    state = GAME.new(5, seed=0)
    assert isinstance(state, KingsRoadState)
    assert state.board.supply == [20] * 5
    assert all(hand == set(Card) and len(hand) == 11 for hand in state.hands)
    assert state.king == 1
    assert state.to_act() == (0, 1, 2, 3, 4)
    assert state.observation(3).phase is Phase.CHOOSE_CARDS


def test_the_route_visits_every_region_once_and_skips_the_road_from_3_to_1() -> None:
    assert sorted(ROUTE) == list(range(1, 9))
    pairs = {frozenset((a, b)) for a, b in zip(ROUTE, ROUTE[1:] + ROUTE[:1], strict=True)}
    assert frozenset((3, 1)) not in pairs
    roads = {frozenset((r, n)) for r, facts in REGIONS.items() for n in facts.roads}
    assert roads == pairs | {frozenset((3, 1))}
    assert sorted(r for r, facts in REGIONS.items() if len(facts.roads) == 3) == [1, 3]


# Choosing cards


def test_every_seat_chooses_three_cards_at_once() -> None:
    state = KingsRoadState(3)
    plays = state.legal_actions(1)
    assert all(len(play.cards) == 3 or play.cards == (C.WITCH,) for play in plays)
    assert len(plays) == len(set(plays)) == 157


def test_fewer_markers_than_three_means_that_many_cards_of_any_kind() -> None:
    state = KingsRoadState(2)
    put(state.board, 1, [18, 20])
    assert state.observation(0).cards_to_play == 2
    plays = state.legal_actions(0)
    assert {len(play.cards) for play in plays if play.cards != (C.WITCH,)} == {2}
    assert PlayCards((C.DRAGON, C.KNIGHT)) in plays
    assert state.legal_actions(1) == (PlayCards(()),)


def test_the_knight_is_only_ever_the_last_card() -> None:
    for play in KingsRoadState(2).legal_actions(0):
        if C.KNIGHT in play.cards:
            assert play.cards[-1] is C.KNIGHT
    with pytest.raises(RulesError):
        KingsRoadState(2).apply({0: PlayCards((C.KNIGHT, C.DARK_TOWER, C.ZIN_KAIS_DEEP)), 1: ELSEWHERE})


def test_the_witch_is_played_alone_and_never_with_other_cards() -> None:
    plays = KingsRoadState(2).legal_actions(0)
    assert [play for play in plays if C.WITCH in play.cards] == [PlayCards((C.WITCH,))]


def test_an_action_for_a_seat_that_does_not_act_or_a_missing_seat_is_refused() -> None:
    state = KingsRoadState(3)
    with pytest.raises(RulesError):
        state.apply({0: ELSEWHERE, 1: ELSEWHERE})
    with pytest.raises(RulesError):
        state.apply({0: ELSEWHERE, 1: ELSEWHERE, 2: ELSEWHERE, 3: ELSEWHERE})


# Revealing cards


def test_a_region_card_places_one_marker_on_its_region() -> None:
    state = KingsRoadState(2)
    state.apply({0: PlayCards((C.DRAGONS_LAIR, C.TEMPLE_RUINS, C.DARK_TOWER)), 1: ELSEWHERE})
    assert [state.board.markers[r][0] for r in (2, 3, 5)] == [1, 1, 1]
    assert state.board.supply[0] == 17


def test_the_knight_adds_a_marker_to_the_second_card_region() -> None:
    state = KingsRoadState(2)
    state.king = 8  # score elsewhere, so the markers stay to be counted
    state.apply({0: PlayCards((C.DRAGONS_LAIR, C.DARK_TOWER, C.KNIGHT)), 1: ELSEWHERE})
    assert state.board.markers[5][0] == 2
    assert state.board.markers[2][0] == 1
    assert Card.KNIGHT in state.hands[0]  # the Knight returns to the hand


def test_the_knight_after_a_dragon_adds_nothing() -> None:
    state = KingsRoadState(2)
    state.king = 8
    state.apply({0: PlayCards((C.DARK_TOWER, C.DRAGON, C.KNIGHT)), 1: ELSEWHERE})
    assert state.board.markers[5][0] == 1
    assert state.board.supply[0] == 19


def test_dragons_are_cumulative_across_players_and_removed_after_use() -> None:
    state = KingsRoadState(3)
    dragon = PlayCards((C.TEMPLE_RUINS, C.DARK_TOWER, C.DRAGON))
    state.apply({0: dragon, 1: dragon, 2: dragon})
    assert state.last_scored == (1, 6, 4, 7)
    assert state.king == 3
    assert all(Card.DRAGON not in hand for hand in state.hands)
    assert all(PlayCards((C.DRAGON,)) not in state.legal_actions(s) for s in range(3))
    assert all(C.DRAGON not in play.cards for play in state.legal_actions(0))


def test_witch_players_rechoose_together_after_the_others_resolved() -> None:
    state = KingsRoadState(3)
    witch = PlayCards((C.WITCH,))
    state.apply({0: witch, 1: ELSEWHERE, 2: witch})
    assert state.phase is Phase.WITCH_RECHOOSE
    assert state.to_act() == (0, 2)
    assert state.legal_actions(1) == ()
    seen = state.observation(0)
    # Seat 1 has resolved and is visible; the Witch players show only their Witches.
    assert seen.revealed == (Reveal(0, (C.WITCH,)), Reveal(1, ELSEWHERE.cards), Reveal(2, (C.WITCH,)))
    assert state.board.markers[1] == [0, 1, 0]
    assert all(C.WITCH not in play.cards for play in state.legal_actions(0))
    # The re-choice is a fresh three-card choice that may include the Dragon and the Knight.
    state.apply(
        {
            0: PlayCards((C.ZIN_KAIS_DEEP, C.DRAGON, C.KNIGHT)),
            2: PlayCards((C.DARK_TOWER, C.KINGS_ALTAR, C.KNIGHT)),
        }
    )
    assert state.observation(0).phase is Phase.CHOOSE_CARDS
    assert state.round == 2
    assert state.last_scored == (1, 6)  # one Dragon, played in the re-choice
    assert state.board.markers[7][2] == 2
    assert Card.WITCH not in state.hands[0]
    assert Card.WITCH not in state.hands[2]
    assert Card.WITCH in state.hands[1]


# Scoring


def test_only_players_with_a_marker_in_the_region_are_placed() -> None:
    # A lone player takes first place; seats with no marker take no place, paid or not.
    assert place_points([0, 3, 0, 0], REGIONS[8].values, 4) == [0, 8, 0, 0]
    assert place_points([0, 0, 0], REGIONS[8].values, 3) == [0, 0, 0]


def test_at_most_one_fewer_place_than_players_is_paid() -> None:
    assert place_points([3, 1], REGIONS[5].values, 2) == [5, 0]
    assert place_points([3, 2, 1], REGIONS[5].values, 3) == [5, 4, 0]
    assert place_points([4, 3, 2, 1, 1], REGIONS[5].values, 5) == [5, 4, 2, 0, 0]
    assert place_points([5, 4, 3, 2, 1], REGIONS[8].values, 5) == [8, 6, 4, 2, 0]
    # A three-value banner pays no fourth place even in five players.
    assert place_points([5, 4, 3, 2, 1], REGIONS[1].values, 5) == [3, 2, 1, 0, 0]


def test_a_single_leader_crowns_a_noble_that_replaces_the_old_one() -> None:
    board = Board(3)
    put(board, 5, [0, 2, 1])
    score_region(board, 5)
    assert board.nobles[5] == [1]
    assert board.supply == [20, 19, 20]
    put(board, 5, [3, 1, 0])  # seat 1 has the noble + 1 = 2, seat 0 has 3
    points = score_region(board, 5)
    assert board.nobles[5] == [0]
    assert board.supply == [19, 20, 20]  # the old noble went home
    assert points == [5 + 1, 4, 0]


def test_a_leader_whose_lead_is_its_own_noble_keeps_it() -> None:
    board = Board(2)
    put(board, 2, [1, 0])
    score_region(board, 2)
    points = score_region(board, 2)  # nobody placed anything: the noble alone leads
    assert board.nobles[2] == [0]
    assert points == [4 + 1, 0]
    assert board.markers_owned(0) == 20


def test_the_noble_chain_follows_roads_in_every_direction_and_stops_at_a_gap() -> None:
    # 1 has three roads (6, 8, 3): a noble in 1 with nobles in 6, 8 and 3 chains four regions.
    assert noble_chain({1, 6, 8, 3}, 1) == 4
    # 3-5-2 is a chain; 4 is not next to any of them.
    assert noble_chain({3, 5, 2, 4}, 5) == 3
    # The chain continues through 6 to 4, but not past the gap at 7 to 3.
    assert noble_chain({1, 6, 4, 3}, 4) == 4
    assert noble_chain({6, 4, 3}, 4) == 2
    assert noble_chain({6}, 4) == 0


def test_the_king_moves_on_after_each_round() -> None:
    state = KingsRoadState(2)
    visited = []
    for _ in range(8):
        visited.append(state.king)
        state.apply(everyone(state, PlayCards((C.DRAGONS_LAIR, C.TEMPLE_RUINS, C.DARK_TOWER))))
        if state.is_over():
            break
    assert visited == list(ROUTE[: len(visited)])


# The end


def test_the_game_ends_only_at_the_end_of_a_round_in_which_someone_reaches_forty() -> None:
    state = KingsRoadState(2)
    state.scores = [35, 0]
    state.king = 8
    put(state.board, 8, [1, 0])
    witch = PlayCards((C.WITCH,))
    state.apply({0: ELSEWHERE, 1: witch})
    assert not state.is_over()  # the round is not over until the Witch re-choice
    state.apply({1: ELSEWHERE})
    assert state.is_over()
    assert state.to_act() == ()
    assert state.scores[0] >= 40


def test_a_tie_on_points_goes_to_the_most_nobles_and_then_is_shared() -> None:
    state = KingsRoadState(3)
    state.phase = Phase.GAME_OVER
    state.scores = [41, 41, 41]
    state.board.place(1, 5)
    state.board.crown(1, 5)
    assert state.result().ranks == (2, 1, 2)
    state.board.place(0, 2)
    state.board.crown(0, 2)
    assert state.result().ranks == (1, 1, 3)


# Permanent Nobles


def test_permanent_nobles_stack_one_per_player_and_are_never_removed() -> None:
    board = Board(3, permanent_nobles=True)
    put(board, 5, [2, 1, 0])
    score_region(board, 5)
    put(board, 5, [0, 3, 0])  # seat 1 leads 3 to 1: its noble stacks on seat 0's
    points = score_region(board, 5)
    assert board.nobles[5] == [0, 1]
    assert points == [4 + 1, 5 + 1, 0]
    put(board, 5, [0, 3, 0])  # seat 1 leads again: it already has a noble, nothing is added
    score_region(board, 5)
    assert board.nobles[5] == [0, 1]
    assert board.markers_owned(1) == 20


def test_permanent_nobles_is_a_match_option() -> None:
    assert GAME.new(2, 0, {"permanent_nobles": True}).observation(0).permanent_nobles
    assert not GAME.new(2, 0).observation(0).permanent_nobles


def test_players_who_mirror_each_other_cannot_stall_the_game_past_round_one_hundred() -> None:
    # Both seats always take the first legal play, so they play the same cards, tie everywhere
    # and, as a two-player tie pays nothing, never score.
    state = KingsRoadState(2)
    while not state.is_over():
        state.apply({seat: state.legal_actions(seat)[0] for seat in state.to_act()})
    assert state.round == 100
    assert state.scores == [0, 0]
    assert state.result().ranks == (1, 1)


def test_in_a_two_card_play_the_knight_reinforces_the_first_card() -> None:
    state = KingsRoadState(2)
    state.king = 8
    put(state.board, 1, [18, 0])
    state.apply({0: PlayCards((C.DARK_TOWER, C.KNIGHT)), 1: ELSEWHERE})
    assert state.board.markers[5][0] == 2
    assert state.board.supply[0] == 0
    assert state.legal_actions(0) == (PlayCards(()),)
