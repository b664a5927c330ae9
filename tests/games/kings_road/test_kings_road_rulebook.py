"""Every worked example of the King's Road rulebook, from a constructed position."""

from __future__ import annotations

from kingmaker.games.kings_road import Card, KingsRoadState, PlayCards
from kingmaker.games.kings_road.board import Board
from kingmaker.games.kings_road.data import REGIONS
from kingmaker.games.kings_road.scoring import place_points, score_region

DARK_TOWER, DRAGONS_LAIR, TEMPLE_RUINS, KINGS_CASTLE = 5, 2, 3, 8
ELSEWHERE = PlayCards((Card.ZIN_KAIS_DEEP, Card.SAVAGE_HILLS, Card.WIZARDS_TOWER))
"""A play that puts markers on regions 1, 4 and 6, far from the examples' regions."""


def put(board: Board, region: int, counts: list[int]) -> None:
    """Place markers from the players' supplies, as if played in earlier rounds."""
    for seat, count in enumerate(counts):
        for _ in range(count):
            board.place(seat, region)


def test_dark_tower_pays_5_4_2_and_nothing_for_fourth_in_four_players() -> None:
    # Jen 4, Phil 3, Chris 2, Simon 1 in the Dark Tower, a 4-player game.
    state = KingsRoadState(4)
    state.king = DARK_TOWER
    jen, phil, chris, simon = range(4)
    put(state.board, DARK_TOWER, [4, 3, 2, 1])
    state.apply(dict.fromkeys(range(4), ELSEWHERE))
    assert state.last_scored == (DARK_TOWER,)
    # Jen also becomes the Dark Tower's noble (single leader) and earns one bonus point for it.
    assert (state.scores[jen], state.scores[phil]) == (5 + 1, 4)
    assert (state.scores[chris], state.scores[simon]) == (2, 0)
    assert state.board.nobles[DARK_TOWER] == [jen]
    # Everything but the noble went back; each player has three markers out from this round.
    assert state.board.markers[DARK_TOWER] == [0, 0, 0, 0]
    assert state.board.supply == [20 - 1 - 3, 17, 17, 17]


def test_two_tied_for_most_in_the_dark_tower_both_get_second_place() -> None:
    assert place_points([3, 3, 1, 0], REGIONS[DARK_TOWER].values, 4) == [4, 4, 2, 0]


def test_three_tied_for_most_get_third_place_in_four_players_and_nothing_in_three() -> None:
    values = REGIONS[DARK_TOWER].values
    assert place_points([2, 2, 2, 1], values, 4) == [2, 2, 2, 0]
    assert place_points([2, 2, 2], values, 3) == [0, 0, 0]


def test_a_tie_for_most_makes_no_noble_and_keeps_the_old_one() -> None:
    board = Board(3)
    put(board, DARK_TOWER, [0, 0, 1])
    score_region(board, DARK_TOWER)  # seat 2 alone: it becomes the noble
    put(board, DARK_TOWER, [2, 1, 0])  # seat 2 has its noble (1) + 0 = 1
    put(board, DARK_TOWER, [0, 1, 1])  # now 2, 2, 2: a three-way tie
    points = score_region(board, DARK_TOWER)
    assert board.nobles[DARK_TOWER] == [2]
    # Three-way tie in three players: nothing; the old noble still earns its one point.
    assert points == [0, 0, 1]


def test_a_noble_chained_to_temple_ruins_and_dragons_lair_earns_three_bonus_points() -> None:
    board = Board(2)
    board.place(0, TEMPLE_RUINS)
    board.crown(0, TEMPLE_RUINS)
    board.place(0, DRAGONS_LAIR)
    board.crown(0, DRAGONS_LAIR)
    put(board, DARK_TOWER, [2, 1])
    points = score_region(board, DARK_TOWER)
    assert board.nobles[DARK_TOWER] == [0]
    # First place (5) plus the noble chain Temple Ruins - Dark Tower - Dragon's Lair (3).
    assert points == [5 + 3, 0]


def test_two_dragons_score_dragons_lair_and_kings_castle_after_the_dark_tower() -> None:
    state = KingsRoadState(3)
    state.king = DARK_TOWER
    put(state.board, DRAGONS_LAIR, [1, 0, 0])
    put(state.board, KINGS_CASTLE, [0, 1, 0])
    dragon_play = PlayCards((Card.ZIN_KAIS_DEEP, Card.SAVAGE_HILLS, Card.DRAGON))
    state.apply({0: dragon_play, 1: dragon_play, 2: ELSEWHERE})
    assert state.last_scored == (DARK_TOWER, DRAGONS_LAIR, KINGS_CASTLE)
    # Dragon's Lair: seat 0 first (4) + noble (1); King's Castle: seat 1 first (8) + noble (1).
    assert state.scores == [5, 9, 0]
    # The King moves on past the last scored region, to Zin Kai's Deep.
    assert state.king == 1
    # Both Dragons are gone for good.
    assert Card.DRAGON not in state.hands[0]
    assert Card.DRAGON not in state.hands[1]
    assert Card.DRAGON in state.hands[2]


def test_the_final_scoring_takes_every_region_not_scored_in_the_last_round() -> None:
    # Regions 7 and 3 score in the last round (the King in 7, one Dragon); then 5, 2, 8, 1, 6, 4.
    state = KingsRoadState(2)
    state.king = 7
    state.scores = [39, 0]
    put(state.board, 7, [1, 0])  # seat 0 reaches 39 + 7 + 1 (noble) = 47
    put(state.board, 5, [0, 2])  # seat 1 leads the Dark Tower in the final scoring
    state.board.place(0, 6)
    state.board.crown(0, 6)  # an old noble: counts as influence, earns no bonus
    put(state.board, 6, [0, 1])  # 1 against the noble's 1: a tie for most
    dragon_play = PlayCards((Card.DRAGONS_LAIR, Card.KINGS_CASTLE, Card.DRAGON))
    plain = PlayCards((Card.ZIN_KAIS_DEEP, Card.DRAGONS_LAIR, Card.KINGS_CASTLE))
    state.apply({0: dragon_play, 1: plain})
    assert state.is_over()
    assert state.last_scored == (7, 3, 5, 2, 8, 1, 6, 4)
    # Final scoring makes no noble in the Dark Tower and pays no noble bonus anywhere.
    assert state.board.nobles[5] == []
    assert state.board.nobles[6] == [0]
    # Seat 0: 39 + 7 (King's Altar) + 1 (its new noble there) = 47, then the final scoring:
    # Dragon's Lair 1 v 1 and King's Castle 1 v 1 and Wizard's Tower noble v 1 are two-way ties
    # (nothing paid in two players); Zin Kai's Deep seat 1 alone (3).
    # Seat 1: Dark Tower first (5), Zin Kai's Deep first (3).
    assert state.scores == [47, 8]
    assert state.result().ranks == (1, 2)
