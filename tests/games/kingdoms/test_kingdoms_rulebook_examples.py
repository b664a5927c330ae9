"""The worked examples of the rulebook's "Example of scoring", each built on a board of its own.

The book's board is only a picture; the text gives, for each explained line, the tiles and
castles that matter, so each test lays out exactly those on an otherwise empty board. Seats:
yellow is seat 0 (a), red seat 1 (b), blue seat 2 (c).
"""

from __future__ import annotations

from kingdoms_boards import board, column_board

from kingmaker.games.kingdoms.scoring import COLUMN_LINES, ROW_LINES, line_payouts, pay_out

YELLOW, RED, BLUE = 0, 1, 2


def test_row_1_town_and_troll_and_the_wizard_lifting_yellows_rank_1_castle() -> None:
    # Town +3, Troll -6: base -3. Red and blue one rank-1 castle each; yellow a rank-4 and a
    # rank-1 castle, the rank-1 one beside the wizard (below it, in row 2) so it counts rank 2.
    position = board(
        """
        +3 -6 b1 c1 a4 a1
        .  .  .  .  .  W
        """
    )
    assert line_payouts(position, ROW_LINES[0], 3) == [-18, -3, -3]
    gold = [50, 50, 50]
    pay_out(gold, position, [ROW_LINES[0]])
    assert gold == [32, 47, 47]


def test_row_4_mountain_splits_and_the_dragon_cancels_the_village_on_its_side() -> None:
    # Left of the mountain the dragon cancels the village: yellow's rank-2 castle scores 0.
    # Right of it the Knight (+5) pays blue's rank-1 castle 5.
    position = board(
        """
        .  .  .  .  .  .
        .  .  .  .  .  .
        .  .  .  .  .  .
        D  +1 a2 M  +5 c1
        """
    )
    assert line_payouts(position, ROW_LINES[3], 3) == [0, 0, 5]


def test_column_2_dragon_cancels_the_windmill_and_the_gold_mine_doubles_the_dire_wolves() -> None:
    position = column_board(1, "+4 D -3 G b1")
    assert line_payouts(position, COLUMN_LINES[1], 3) == [0, -6, 0]


def test_column_4_mountain_cuts_yellow_off_and_blue_pays_for_village_and_raider() -> None:
    position = column_board(3, "+1 -5 c1 M a3")
    assert line_payouts(position, COLUMN_LINES[3], 3) == [0, 0, -4]


def test_column_6_knight_and_farm_with_two_rank_1_castles_beside_the_wizard() -> None:
    position = column_board(5, "+5 a1 W c1 +2")
    assert line_payouts(position, COLUMN_LINES[5], 3) == [14, 0, 14]
