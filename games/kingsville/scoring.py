"""End of age and end of game scoring.

End of each age, for each player, in the rulebook's order: lose 5 points for every person with
no theatre above them; lose the person and the order in every slot with no farm (the person goes
back to the supply, the order is discarded); gain the benefits of every wonder built so far.

End of game: points scored during play, plus 10 to each player with the most farms and 10 to each
with the most theatres (ties all score), 4 for the first wonder, 5 for the second and so on,
the Age III wonders' special points, 5 per basic person and 10 per advanced person (the King
counts as advanced). Ties: most gold + wood left, then a shared place (Race for the Galaxy's
rule: goods and cards left, then a shared victory).
"""

from __future__ import annotations

from kingmaker.games.kingsville.board import Board
from kingmaker.games.kingsville.cards import CARDS, Per, PersonType

HOMELESS_PENALTY = 5
MAJORITY_BONUS = 10
FIRST_WONDER_POINTS = 4
BASIC_PERSON_POINTS = 5
ADVANCED_PERSON_POINTS = 10


def end_of_age(board: Board, supply: dict[PersonType, int]) -> None:
    """Apply the three end-of-age effects to one player's board."""
    for slot, person in enumerate(board.people):
        if person is not None and slot >= board.theatres:
            board.points -= HOMELESS_PENALTY
    for slot, person in enumerate(board.people):
        if person is not None and slot >= board.farms:
            supply[person] += 1
            board.people[slot] = None
            board.orders[slot] = None
    for wonder in board.wonders:
        board.gain(wonder.age_benefit)


def wonder_count_points(count: int) -> int:
    """4 for the first wonder, 5 for the second, and so on."""
    return sum(FIRST_WONDER_POINTS + i for i in range(count))


def people_points(board: Board) -> int:
    total = 0
    for person in board.people:
        if person is not None:
            advanced = CARDS.kind(person).advanced
            total += ADVANCED_PERSON_POINTS if advanced else BASIC_PERSON_POINTS
    return total


def _count(board: Board, per: Per) -> int:
    people = [p for p in board.people if p is not None]
    counts = {
        Per.FLAT: 1,
        Per.FARM: board.farms,
        Per.THEATRE: board.theatres,
        Per.PERSON: len(people),
        Per.ADVANCED_PERSON: sum(1 for p in people if CARDS.kind(p).advanced),
        Per.WONDER: len(board.wonders),
        Per.ORDER: sum(1 for o in board.orders if o is not None),
    }
    return counts[per]


def special_points(board: Board) -> int:
    """The Age III wonders' special points."""
    return sum(
        w.final_points.points * _count(board, w.final_points.per)
        for w in board.wonders
        if w.final_points is not None
    )


def final_scores(boards: list[Board]) -> list[int]:
    """Each player's score if the game ended now."""
    most_farms = max(b.farms for b in boards)
    most_theatres = max(b.theatres for b in boards)
    return [
        b.points
        + (MAJORITY_BONUS if b.farms == most_farms else 0)
        + (MAJORITY_BONUS if b.theatres == most_theatres else 0)
        + wonder_count_points(len(b.wonders))
        + special_points(b)
        + people_points(b)
        for b in boards
    ]


def tie_break(board: Board) -> int:
    """Leftover resources, the Race for the Galaxy tie-break."""
    return board.gold + board.wood
