"""What each variant changes, each shown on its own, plus the variants combined."""

from __future__ import annotations

from kingdoms_boards import board

from kingmaker.games.kingdoms import (
    GAME,
    ChooseTile,
    DrawTile,
    KingdomsState,
    Pass,
    PlaceCastle,
    PlaceDrawnTile,
    Variants,
)
from kingmaker.games.kingdoms.pieces import TILE_SET, TileKind
from kingmaker.games.rng import ScriptedRng

LAST_CASTLE = Variants(last_castle=True)
NO_LUCK = Variants(no_luck=True)
AS_YOU_GO = Variants(score_as_you_go=True)


# --- Down to the Last Castle ----------------------------------------------------------------


def test_last_castle_gives_all_ten_castles_whatever_the_player_count() -> None:
    for players in (2, 3, 4):
        state = GAME.new(players, seed=1, options={"down_to_the_last_castle": True})
        assert state.observation(0).players[players - 1].castles == (4, 3, 2, 1)
        assert state.observation(0).last_epoch == 0


def test_last_castle_spends_rank_1_castles_too_and_goes_on_past_three_epochs() -> None:
    state = KingdomsState(2, ScriptedRng([0, 0, 0, 0, 0]), LAST_CASTLE)
    state.epoch = 3
    state.board = board(
        """
        .  a1 b1 M  M  M
        M  M  M  M  M  M
        M  M  M  M  M  M
        M  M  M  M  M  M
        M  M  M  M  M  M
        """
    )
    state.castles = [[3, 3, 2, 1], [2, 3, 2, 1]]
    state.apply({0: PlaceCastle(1, 0, 0)})
    assert not state.is_over()
    assert state.epoch == 4
    assert state.castles == [[2, 3, 2, 1], [2, 3, 2, 1]]  # no castle came back


def test_last_castle_ends_after_the_epoch_in_which_someone_places_their_last_castle() -> None:
    state = KingdomsState(2, ScriptedRng([0, 0, 0]), LAST_CASTLE)
    state.board = board("\n".join([". +3 b2 M M M", *["M M M M M M"] * 4]))
    state.castles = [[1, 0, 0, 0], [3, 3, 2, 1]]
    state.apply({0: PlaceCastle(1, 0, 0)})
    assert state.is_over()
    assert state.result().scores == (53, 56)  # scored as normal before the end


def test_last_castle_epoch_ends_when_nobody_can_act_and_empty_spaces_count_zero() -> None:
    state = KingdomsState(2, ScriptedRng([0, 0, 0]), LAST_CASTLE)
    state.board = board("a1 +2 . . . .")  # plenty of empty spaces
    state.castles = [[0, 0, 0, 0], [1, 0, 0, 0]]
    state.starting_tiles = [None, None]
    state.supply = []
    assert state.legal_actions(0) == (Pass(),)
    state.apply({0: Pass()})
    assert state.to_act() == (1,)
    state.apply({1: PlaceCastle(1, 1, 0)})  # now nobody holds anything: the epoch and game end
    assert state.is_over()
    assert state.result().scores == (52, 50)  # row 0: +2 for a1; column 0: empty space is 0


# --- No Luck --------------------------------------------------------------------------------


def test_no_luck_has_no_starting_tiles_and_a_face_up_supply() -> None:
    state = KingdomsState(2, ScriptedRng([1]), NO_LUCK)  # the only draw: seat 1 starts
    view = state.observation(0)
    assert view.starting_tile is None
    assert not any(p.holds_starting_tile for p in view.players)
    assert view.face_up_supply == TILE_SET
    assert view.supply_size == 23
    assert state.to_act() == (1,)


def test_no_luck_lets_a_player_choose_which_tile_to_take_then_place_it() -> None:
    state = KingdomsState(2, ScriptedRng([0]), NO_LUCK)
    legal = state.legal_actions(0)
    assert DrawTile() not in legal
    choices = [action.tile for action in legal if isinstance(action, ChooseTile)]
    assert len(choices) == len(set(TILE_SET)) == 16  # identical tiles are one choice
    dragon = next(tile for tile in TILE_SET if tile.kind is TileKind.DRAGON)
    state.apply({0: ChooseTile(dragon)})  # no chance involved: the script has no draw left
    assert state.to_act() == (0,)
    assert state.observation(0).drawn_tile == dragon
    state.apply({0: PlaceDrawnTile(4, 4)})
    assert dragon not in state.observation(1).face_up_supply
    assert state.observation(1).board[4].cells[4].tile == dragon


# --- Score as You Go ------------------------------------------------------------------------


def test_score_as_you_go_scores_a_row_the_moment_it_is_full() -> None:
    state = KingdomsState(2, ScriptedRng([0, 0, 0]), AS_YOU_GO)
    state.board = board("a1 +5 -1 b2 +2 .")
    state.apply({0: PlaceCastle(3, 0, 5)})  # fills row 0: value 6
    assert state.gold == [50 + 6 * 4, 50 + 6 * 2]
    assert [p.last_scoring for p in state.observation(1).players] == [24, 12]
    assert state.epoch == 1
    assert not state.is_over()


def test_score_as_you_go_scores_row_and_column_filled_by_one_placement() -> None:
    state = KingdomsState(2, ScriptedRng([0, 0, 0]), AS_YOU_GO)
    state.board = board(
        """
        .  .  .  .  .  +1
        .  .  .  .  .  +2
        .  .  .  .  .  +3
        .  .  .  .  .  +4
        a1 +6 +6 -6 -1 .
        """
    )
    state.apply({0: PlaceCastle(1, 4, 5)})  # row 4 is worth 5 to each castle, column 5 10
    assert state.gold == [50 + 2 * 5 + 10, 50]


def test_the_standard_game_waits_for_the_end_of_the_epoch() -> None:
    state = KingdomsState(2, ScriptedRng([0, 0, 0]))
    state.board = board("a1 +5 -1 b2 +2 .")
    state.apply({0: PlaceCastle(3, 0, 5)})
    assert state.gold == [50, 50]


# --- all together ---------------------------------------------------------------------------


def test_all_three_variants_play_a_whole_seeded_game() -> None:
    options = {"down_to_the_last_castle": True, "no_luck": True, "score_as_you_go": True}
    state = GAME.new(3, seed=11, options=options)
    steps = 0
    while not state.is_over():
        seat = state.to_act()[0]
        state.apply({seat: state.legal_actions(seat)[-1]})
        steps += 1
    assert steps <= GAME.spec.max_decisions
    assert any(not any(castles) for castles in state.castles)
