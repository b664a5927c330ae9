"""The compiled encoders write each kind of field as the layout says, number by number."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np
import pytest

from kingmaker.envs.encoding import BoundError, layout_of, new_numbers, union_layout


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"
    GREEN = "green"


@dataclass(frozen=True)
class Piece:
    colour: Colour
    height: int


@dataclass(frozen=True)
class View:
    seat: int
    ready: bool
    name: str
    held: Piece | None
    pieces: tuple[Piece, ...]


BOUNDS = {"View.pieces": 3}


def encoded(value: object, kind: type) -> list[float]:
    numbers = new_numbers()
    layout_of(kind, BOUNDS, kind.__name__).encode(value, numbers)
    return np.frombuffer(numbers, dtype=np.float32).tolist()


def test_every_kind_of_field_is_written_in_place() -> None:
    view = View(2, True, "x", None, (Piece(Colour.BLUE, 4), Piece(Colour.RED, 1)))
    numbers = encoded(view, View)
    assert len(numbers) == layout_of(View, BOUNDS, "View").width == 3 + 1 + 4 + 3 * 5
    assert numbers[:2] == [2.0, 1.0]
    assert 0.0 <= numbers[2] < 1.0
    assert numbers[3:8] == [0.0] * 5  # no piece held: absent flag and zeros
    assert numbers[8:] == [1, 0, 1, 0, 4, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0]  # two entries, one padding


def test_a_held_value_follows_its_presence_flag() -> None:
    numbers = encoded(View(0, False, "x", Piece(Colour.GREEN, 7), ()), View)
    assert numbers[1] == 0.0
    assert numbers[3:8] == [1, 0, 0, 1, 7]
    assert numbers[8:] == [0.0] * 15


def test_a_tuple_past_its_bound_names_the_field() -> None:
    view = View(0, False, "x", None, (Piece(Colour.RED, 1),) * 4)
    with pytest.raises(BoundError, match=r"View\.pieces holds 4 entries, past its bound of 3"):
        encoded(view, View)


def test_a_union_marks_the_type_and_leaves_the_others_zero() -> None:
    layout = union_layout([Piece, View], BOUNDS)
    numbers = new_numbers()
    layout.encode(Piece(Colour.RED, 3), numbers)
    assert numbers.tolist() == [1.0, 0.0, 1.0, 0.0, 0.0, 3.0] + [0.0] * 23
    numbers = new_numbers()
    layout.encode(View(1, True, "x", None, ()), numbers)
    assert numbers.tolist()[:8] == [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    assert len(numbers) == layout.width


@dataclass(frozen=True)
class Row:
    pieces: tuple[Piece, ...]


@dataclass(frozen=True)
class Board:
    rows: tuple[Row, ...]


def test_entries_met_again_encode_as_the_first_time_even_nested() -> None:
    bounds = {"Board.rows": 2, "Row.pieces": 2}
    layout = layout_of(Board, bounds, "Board")
    red, blue = Piece(Colour.RED, 1), Piece(Colour.BLUE, 2)
    expected = {
        red: [1.0, 1, 0, 0, 1],
        blue: [1.0, 0, 1, 0, 2],
    }
    same = [Board((Row((red,)), Row((blue, red)))), Board((Row((blue, red)), Row((red,))))] * 2
    # Met again as the same objects (found by identity), as equal new ones (found by value), and
    # as new values made of known entries.
    equal = [Board((Row((Piece(Colour.RED, 1),)), Row((Piece(Colour.BLUE, 2), Piece(Colour.RED, 1)))))]
    mixed = [Board((Row((red, blue)), Row((Piece(Colour.BLUE, 2),))))]
    for board in same + equal + mixed + same:
        numbers = new_numbers()
        layout.encode(board, numbers)
        want: list[float] = []
        for row in board.rows:
            want.append(1.0)
            for piece in row.pieces:
                want.extend(expected[piece])
            want.extend([0.0] * 5 * (2 - len(row.pieces)))
        assert numbers.tolist() == want


def test_a_request_encodes_the_same_whether_its_legal_actions_are_met_again_or_new() -> None:
    from kingmaker.envs.table import Encoder
    from kingmaker.games.registry import get_game

    state = get_game("kingdoms").new(2, 7)
    seat = state.to_act()[0]
    observation, legal = state.observation(seat), state.legal_actions(seat)
    encoder = Encoder("kingdoms")
    first = encoder.array(observation, legal)
    assert np.array_equal(encoder.array(observation, legal), first)  # the same tuple: kept
    assert np.array_equal(encoder.array(observation, (*legal,)), first)  # a new tuple
    shorter = encoder.array(observation, legal[1:])
    start = encoder.observation_width
    assert np.array_equal(
        shorter[start:], np.concatenate([first[start + encoder.action_width :], [0.0] * encoder.action_width])
    )
