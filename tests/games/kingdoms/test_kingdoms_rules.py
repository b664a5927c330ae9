"""Each rule of the standard game, shown enforced on a small constructed position."""

from __future__ import annotations

import pytest
from kingdoms_boards import board, space

from kingmaker.games.api import OptionsError, RulesError
from kingmaker.games.kingdoms import (
    GAME,
    DrawTile,
    KingdomsState,
    Pass,
    PlaceCastle,
    PlaceDrawnTile,
    PlaceStartingTile,
)
from kingmaker.games.kingdoms.perturb import perturb_secrets
from kingmaker.games.kingdoms.pieces import TILE_SET, Castle, Tile, TileKind
from kingmaker.games.kingdoms.scoring import COLUMN_LINES, ROW_LINES, line_payouts, pay_out
from kingmaker.games.rng import ScriptedRng

VILLAGE = TILE_SET[0]
FARM = TILE_SET[2]


def two_player_state(*extra_draws: int) -> KingdomsState:
    """Seat 0 holds a Village, seat 1 the other Village, seat 0 starts."""
    return KingdomsState(2, ScriptedRng([0, 0, 0, *extra_draws]))


def almost_full(state: KingdomsState, text: str) -> None:
    """Put a board with one empty space (``.``) on ``state``, for epoch-end tests."""
    state.board = board(text)
    assert state.board.count(None) == 1


# --- setup --------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "rank_one"), [(2, 4), (3, 3), (4, 2)])
def test_castles_gold_and_starting_tiles_by_player_count(players: int, rank_one: int) -> None:
    state = GAME.new(players, seed=7)
    for view in state.observation(0).players:
        assert view.castles == (rank_one, 3, 2, 1)
        assert view.gold == 50
        assert view.holds_starting_tile
    assert state.observation(0).supply_size == len(TILE_SET) - players == 23 - players


@pytest.mark.parametrize("players", [0, 1, 5, 6])
def test_player_counts_outside_two_to_four_are_rejected(players: int) -> None:
    with pytest.raises(OptionsError):
        GAME.new(players, seed=0)


@pytest.mark.parametrize(
    "options",
    [{"variant": "no_luck"}, {"no_luck": 1}, {"score_as_you_go": "yes"}, {"down_to_the_last_castle": None}],
)
def test_unknown_or_mistyped_options_are_rejected(options: dict[str, object]) -> None:
    with pytest.raises(OptionsError):
        GAME.new(2, seed=0, options=options)  # type: ignore[arg-type]


def test_the_tile_set_has_the_rulebooks_23_tiles() -> None:
    kinds = [tile.kind for tile in TILE_SET]
    resources = sorted(t.value for t in TILE_SET if t.kind is TileKind.RESOURCE)
    hazards = sorted(t.value for t in TILE_SET if t.kind is TileKind.HAZARD)
    assert resources == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]
    assert hazards == [-6, -5, -4, -3, -2, -1]
    assert kinds.count(TileKind.MOUNTAIN) == 2
    assert [kinds.count(k) for k in (TileKind.DRAGON, TileKind.GOLD_MINE, TileKind.WIZARD)] == [1, 1, 1]


def test_the_first_player_of_epoch_1_is_drawn_after_the_starting_tiles() -> None:
    state = KingdomsState(3, ScriptedRng([0, 1, 0, 2]))
    assert state.to_act() == (2,)
    assert state.first_player == 2
    assert state.starting_tiles == [VILLAGE, FARM, TILE_SET[1]]


# --- turns ----------------------------------------------------------------------------------


def test_a_turn_offers_castles_a_draw_and_the_starting_tile_but_no_pass() -> None:
    state = two_player_state()
    legal = state.legal_actions(0)
    assert PlaceCastle(4, 4, 5) in legal
    assert PlaceCastle(1, 0, 0) in legal
    assert DrawTile() in legal
    assert PlaceStartingTile(2, 3) in legal
    assert Pass() not in legal
    assert len(legal) == 4 * 30 + 1 + 30
    assert state.legal_actions(1) == ()
    with pytest.raises(RulesError):
        state.apply({1: PlaceCastle(1, 0, 0)})


def test_a_drawn_tile_is_placed_by_the_same_seat_as_a_second_decision() -> None:
    state = two_player_state(2)  # the draw takes supply index 2: with both Villages out, a Town
    state.apply({0: DrawTile()})
    drawn = state.observation(0).drawn_tile
    assert drawn is not None
    assert (drawn.kind, drawn.value) == (TileKind.RESOURCE, 3)
    assert state.to_act() == (0,)
    assert set(state.legal_actions(0)) == {PlaceDrawnTile(r, c) for r in range(5) for c in range(6)}
    assert state.observation(1).drawn_tile is None  # only the drawer sees it before it is placed
    state.apply({0: PlaceDrawnTile(1, 2)})
    assert state.observation(1).board[1].cells[2].tile == drawn
    assert state.to_act() == (1,)


def test_the_starting_tile_is_hidden_from_the_other_seats() -> None:
    state = KingdomsState(2, ScriptedRng([0, 5, 1]))
    mine, theirs = state.observation(0), state.observation(1)
    assert mine.starting_tile == VILLAGE
    assert theirs.starting_tile is not None
    assert theirs.starting_tile != VILLAGE
    assert mine.players[1].holds_starting_tile
    assert theirs.players[0].holds_starting_tile
    state.apply({1: PlaceStartingTile(0, 0)})
    assert state.observation(0).board[0].cells[0].tile == theirs.starting_tile
    assert not state.observation(0).players[1].holds_starting_tile


def test_pass_is_legal_only_when_nothing_else_is() -> None:
    state = two_player_state()
    state.castles[0] = [0, 0, 0, 0]
    state.starting_tiles[0] = None
    assert state.legal_actions(0) == (DrawTile(),)  # no castle, no starting tile: must draw
    state.supply = []
    assert state.legal_actions(0) == (Pass(),)
    state.apply({0: Pass()})
    assert state.to_act() == (1,)
    assert Pass() not in state.legal_actions(1)


def test_a_placed_space_cannot_be_used_again() -> None:
    state = two_player_state()
    state.apply({0: PlaceCastle(2, 3, 3)})
    assert all(getattr(a, "row", None) != 3 or a.column != 3 for a in state.legal_actions(1))
    assert state.observation(1).players[0].castles == (4, 2, 2, 1)


# --- scoring rules ---------------------------------------------------------------------------


def test_the_wizard_raises_orthogonal_neighbours_in_row_and_column_but_not_diagonals() -> None:
    position = board(
        """
        +2 a1 .  .  .  .
        b1 W  .  .  .  .
        .  +3 a2 .  .  .
        """
    )
    # a1 (row 0) is beside the wizard: rank 2 against +2 in its row, and its column holds +3.
    assert line_payouts(position, ROW_LINES[0], 2) == [4, 0]
    assert line_payouts(position, COLUMN_LINES[1], 2) == [6, 0]
    # b1 (row 1, column 0) is beside it too; a2 at (2, 2) is only diagonal and keeps rank 2.
    assert line_payouts(position, COLUMN_LINES[0], 2) == [0, 4]
    assert line_payouts(position, ROW_LINES[2], 2) == [6, 0]


def test_the_dragon_cancels_resources_only_in_its_own_lines() -> None:
    position = board(
        """
        D  .  +5 -2 a1 .
        .  .  a1 .  .  .
        .  .  +1 .  .  .
        """
    )
    assert line_payouts(position, ROW_LINES[0], 1) == [-2]  # the Knight counts nothing here
    assert line_payouts(position, COLUMN_LINES[2], 1) == [6]  # but counts in its own column


def test_the_gold_mine_doubles_negative_lines_too() -> None:
    position = board("-4 +1 G a2 . .")
    assert line_payouts(position, ROW_LINES[0], 1) == [-12]


def test_a_mountain_splits_a_line_into_parts_scored_apart() -> None:
    position = board("+6 a1 M -3 b2 G")
    assert line_payouts(position, ROW_LINES[0], 2) == [6, -12]


def test_two_mountains_make_three_parts() -> None:
    position = board("a1 +2 M b1 M +3")
    assert line_payouts(position, ROW_LINES[0], 2) == [2, 0]


def test_gold_never_goes_below_zero_and_rows_are_paid_before_columns() -> None:
    # Row 0 costs seat 0 -12 (more than its 5 gold); column 0 then pays it +4.
    position = board(
        """
        a2 -6 .  .  .  .
        +2 .  .  .  .  .
        """
    )
    gold = [5]
    assert pay_out(gold, position, [ROW_LINES[0], COLUMN_LINES[0]]) == [-1]
    assert gold == [4]  # 5 - 12 stops at 0, then + 4; unfloored it would have been -3


# --- epochs ----------------------------------------------------------------------------------


FULL_BOARD_BUT_ONE = """
    a1 a4 +6 +6 -1 M
    b1 b2 +5 +5 -2 M
    a1 .  +4 +4 -3 D
    b1 b3 +3 +3 -4 G
    +1 +1 +2 +2 -5 W
    """


def test_rank_1_castles_return_after_an_epoch_and_the_others_are_spent() -> None:
    state = two_player_state(*[0] * 3)  # epoch 2 draws: two starting tiles, no first-player draw
    almost_full(state, FULL_BOARD_BUT_ONE)
    state.castles = [[2, 3, 2, 0], [2, 2, 1, 1]]
    state.apply({0: PlaceCastle(2, 2, 1)})
    assert state.epoch == 2
    assert state.castles == [[4, 2, 2, 0], [4, 2, 1, 1]]
    assert state.board == [None] * 30
    assert len(state.supply) == 21
    assert all(state.starting_tiles)


def test_the_richest_player_starts_the_next_epoch() -> None:
    state = two_player_state(0, 0)
    almost_full(state, FULL_BOARD_BUT_ONE)
    state.gold = [50, 80]
    state.apply({0: PlaceCastle(1, 2, 1)})
    assert state.gold[1] > state.gold[0]
    assert state.first_player == 1
    assert state.to_act() == (1,)


def test_ties_for_richest_go_to_the_first_tied_seat_in_turn_order_from_the_next_player() -> None:
    state = KingdomsState(3, ScriptedRng([0, 0, 0, 1]))  # seat 1 starts epoch 1
    state.board = board(
        """
        +1 +1 +2 +2 +3 +3
        +4 +4 +5 +5 +6 +6
        -1 -2 -3 -4 -5 -6
        M  M  D  G  W  +1
        +1 +1 +1 +1 +1 .
        """
    )
    state.gold = [60, 40, 60]
    state.rng = ScriptedRng([0, 0, 0])  # the next epoch's starting tiles
    state.apply({1: PlaceCastle(1, 4, 5)})  # seat 1 fills the board; seat 2 would play next
    assert state.gold == [60, 49, 60]  # row 4 pays seat 1 5, column 5 pays it 4
    assert state.first_player == 2


def test_an_unplayed_starting_tile_goes_back_and_the_next_epoch_uses_all_23_tiles() -> None:
    state = two_player_state(0, 0)
    almost_full(state, FULL_BOARD_BUT_ONE)
    assert state.starting_tiles[1] is not None
    state.apply({0: PlaceCastle(1, 2, 1)})
    in_hand = [tile for tile in state.starting_tiles if tile is not None]
    assert sorted(map(str, state.supply + in_hand)) == sorted(map(str, TILE_SET))


def test_the_game_ends_after_the_third_epoch_and_equal_gold_shares_a_place() -> None:
    state = two_player_state()
    state.epoch = 3
    almost_full(state, "\n".join([". a1 b1 M M M", *["M M M M M M"] * 4]))
    state.apply({0: PlaceStartingTile(0, 0)})  # a Village: +1 for each seat's rank-1 castle
    assert state.is_over()
    assert state.to_act() == ()
    assert state.result().scores == (51, 51)
    assert state.result().ranks == (1, 1)
    assert state.observation(0).turn is None


def test_a_finished_game_ranks_by_gold() -> None:
    state = two_player_state()
    state.epoch = 3
    state.gold = [10, 90]
    almost_full(state, "\n".join([". a1 b1 M M M", *["M M M M M M"] * 4]))
    state.apply({0: PlaceCastle(3, 0, 0)})
    assert state.result().ranks == (2, 1)


def test_space_tokens_mean_what_the_helper_says() -> None:
    # Guards the other tests' notation: a1 is seat 0's rank-1 castle, -6 the Troll.
    assert space("a1") == Castle(0, 1)
    assert space("-6") == Tile(TileKind.HAZARD, -6, "Troll")


def test_perturbing_a_seats_secrets_changes_only_that_seats_view() -> None:
    state = two_player_state(2)
    state.apply({0: DrawTile()})  # seat 0 now holds a starting tile and a drawn tile
    other = perturb_secrets(state, 0, seed=3)
    assert isinstance(other, KingdomsState)
    assert other.observation(0).starting_tile != state.observation(0).starting_tile
    assert other.observation(0).drawn_tile != state.observation(0).drawn_tile
    assert other.observation(1) == state.observation(1)
    assert state.observation(0).starting_tile == VILLAGE  # the original is untouched
