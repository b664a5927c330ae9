"""A greedy Kingdoms bot: each turn it takes the action that most improves its expected lead.

It reads only the observation. For every row and column part it estimates what the part will
pay when the epoch is scored: the tiles already there, plus, for each empty space, the chance
that a tile lands there times the average value of the tiles it has not seen yet (resources
count nothing under a dragon, a gold mine doubles). Its "lead" is its own expected payout minus
the average of the other players'. Each legal action is scored by how much it raises that lead
(drawing a tile by the average, over the unseen tiles, of the best place for each), minus a
small reserve price for castles of rank 2 and up, which are spent for good, before the last
epoch. It ignores the zero floor on gold and whatever the opponents will do next.

Run it against a server: ``python sample_bots/kingdoms/greedy_bot.py`` with ``KINGMAKER_SERVER``
and ``KINGMAKER_TOKEN`` set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kingmaker.games.kingdoms import (
    ChooseTile,
    DrawTile,
    Observation,
    PlaceCastle,
    PlaceDrawnTile,
    PlaceStartingTile,
)
from kingmaker.games.kingdoms.pieces import COLUMNS, TILE_SET, Castle, Tile, TileKind
from kingmaker.games.kingdoms.scoring import (
    ALL_LINES,
    Board,
    Line,
    Space,
    effective_rank,
    lines_through,
    neighbours,
    part_value,
    parts,
)
from kingmaker.sdk import Bot, Request

ORDINARY = (TileKind.RESOURCE, TileKind.HAZARD)
"""The tiles whose placement changes only the two parts they land in."""
RESERVE_PER_RANK = 3.0
"""Gold a castle rank above 1 is assumed to be worth in a later epoch, if kept."""


@dataclass(frozen=True)
class Outlook:
    """What an empty space is expected to add to its part, from the tiles not yet seen."""

    per_empty: float
    """Expected value an empty space adds (chance of a tile times the unseen tiles' mean)."""
    per_empty_under_dragon: float
    """The same where a dragon cancels resources: only hazards count."""


class GreedyBot(Bot):
    name = "kingdoms-greedy"

    def __init__(self, draw_specials: bool = True) -> None:
        self.draw_specials = draw_specials
        """False: a draw is valued by the resources and hazards it may bring only, as if the
        special tiles were worth as much on average: a quick approximation for a search's
        rollouts (the special tiles' placements are most of the valuation's cost, and a draw
        asks for every one of them; it picks the full valuation's move 97% of the time)."""

    def act(self, request: Request) -> int:
        legal = request.legal_actions
        if len(legal) == 1:
            return 0
        values = self.values(request.observation, legal)
        return max(range(len(legal)), key=values.__getitem__)

    def values(self, view: Observation, legal: tuple[object, ...]) -> list[float]:
        """Each legal action's worth; the bot plays the largest (a search bot's guide, too)."""
        board = board_of(view)
        unseen = unseen_tiles(view, board)
        estimate = Estimate(board, view.seat, len(view.players), outlook_of(view, board, unseen))
        return [self._value(view, estimate, action, unseen) for action in legal]

    def _value(self, view: Observation, estimate: Estimate, action: object, unseen: Counter[Tile]) -> float:
        if isinstance(action, PlaceCastle):
            gain = estimate.castle_gain(action.row * COLUMNS + action.column, action.rank)
            last_epoch = view.last_epoch != 0 and view.epoch >= view.last_epoch
            reserve = 0.0 if last_epoch else RESERVE_PER_RANK * (action.rank - 1)
            return gain - reserve
        if isinstance(action, PlaceDrawnTile | PlaceStartingTile):
            tile = view.drawn_tile if isinstance(action, PlaceDrawnTile) else view.starting_tile
            assert tile is not None
            return estimate.tile_gain(action.row * COLUMNS + action.column, tile)
        if isinstance(action, ChooseTile):
            return estimate.best_placement(action.tile)
        if isinstance(action, DrawTile):
            drawn = [(tile, n) for tile, n in unseen.items() if self.draw_specials or tile.kind in ORDINARY]
            total = sum(count for _, count in drawn)
            weighted = sum(count * estimate.best_placement(tile) for tile, count in drawn)
            return weighted / max(total, 1)
        return 0.0


@dataclass(frozen=True)
class PartFacts:
    """What a placement in one part of a line needs to know about that part."""

    lead_ranks: float
    """My castle ranks there minus the other players' average."""
    expected_value: float
    """The part's expected base value at scoring."""
    per_empty: float
    """What one empty space of this part is expected to add (gold mine included)."""
    dragon: bool
    mine: bool


class Estimate:
    """Expected epoch payouts of one position, with fast gains for ordinary placements.

    A resource, hazard or castle changes only the two parts it lands in, and the lead is linear in
    the parts' values, so those gains are a few multiplications; the special tiles reshape lines
    (or, for the wizard, castles' ranks) and are scored by recomputing the lines they touch."""

    def __init__(self, board: Board, seat: int, players: int, outlook: Outlook) -> None:
        self.board = board
        self.seat = seat
        self.players = players
        self.outlook = outlook
        self._best: dict[Tile, float] = {}
        self._lead_before: dict[tuple[int, bool], float] = {}
        self.empty = [i for i, space in enumerate(board) if space is None]
        self.facts: dict[int, list[PartFacts]] = {i: [] for i in self.empty}
        for line in ALL_LINES:
            for part in parts(board, line):
                facts = self._part_facts(part)
                for i in part:
                    if board[i] is None:
                        self.facts[i].append(facts)

    def _part_facts(self, part: Line) -> PartFacts:
        tiles = [space for i in part if isinstance(space := self.board[i], Tile)]
        dragon = any(tile.kind is TileKind.DRAGON for tile in tiles)
        mine = any(tile.kind is TileKind.GOLD_MINE for tile in tiles)
        per_empty = self.outlook.per_empty_under_dragon if dragon else self.outlook.per_empty
        per_empty *= 2 if mine else 1
        empties = sum(1 for i in part if self.board[i] is None)
        ranks = [0.0] * self.players
        for i in part:
            space = self.board[i]
            if isinstance(space, Castle):
                ranks[space.owner] += effective_rank(self.board, i)
        return PartFacts(
            lead_ranks=lead(ranks, self.seat),
            expected_value=part_value(tiles) + empties * per_empty,
            per_empty=per_empty,
            dragon=dragon,
            mine=mine,
        )

    def castle_gain(self, index: int, rank: int) -> float:
        """My expected lead gained by putting my castle of ``rank`` on the empty ``index``."""
        beside_wizard = any(
            isinstance(space := self.board[near], Tile) and space.kind is TileKind.WIZARD
            for near in neighbours(index)
        )
        effective = rank + (1 if beside_wizard else 0)
        gain = 0.0
        for facts in self.facts[index]:
            # The space is no longer empty: the part loses one empty's expectation, for everyone.
            value_after = facts.expected_value - facts.per_empty
            gain += value_after * effective - facts.per_empty * facts.lead_ranks
        return gain

    def tile_gain(self, index: int, tile: Tile) -> float:
        """My expected lead gained by putting ``tile`` on the empty ``index``."""
        if tile.kind not in (TileKind.RESOURCE, TileKind.HAZARD):
            return self._special_gain(index, tile)
        gain = 0.0
        for facts in self.facts[index]:
            counted = 0 if facts.dragon and tile.kind is TileKind.RESOURCE else tile.value
            change = counted * (2 if facts.mine else 1) - facts.per_empty
            gain += change * facts.lead_ranks
        return gain

    def _special_gain(self, index: int, tile: Tile) -> float:
        """``placement_gain`` with the lead before the placement kept per space and reach."""
        wizard = tile.kind is TileKind.WIZARD
        touched = set(lines_through(index))
        if wizard:
            for near in neighbours(index):
                touched.update(lines_through(near))
        before = self._lead_before.get((index, wizard))
        if before is None:
            payouts = expected_payouts(self.board, touched, self.players, self.outlook)
            before = self._lead_before[(index, wizard)] = lead(payouts, self.seat)
        after = list(self.board)
        after[index] = tile
        return lead(expected_payouts(after, touched, self.players, self.outlook), self.seat) - before

    def best_placement(self, tile: Tile) -> float:
        """The gain of the best empty space for ``tile`` (kept: drawing asks it of every tile)."""
        best = self._best.get(tile)
        if best is None:
            best = self._best[tile] = max(self.tile_gain(i, tile) for i in self.empty)
        return best


def board_of(view: Observation) -> list[Space]:
    """The observation's board as the engine's flat list of spaces."""
    return [cell.castle or cell.tile for row in view.board for cell in row.cells]


def unseen_tiles(view: Observation, board: Board) -> Counter[Tile]:
    """Tiles that may still come out of the supply (exactly the supply in No Luck)."""
    if view.no_luck:
        return Counter(view.face_up_supply)
    unseen = Counter(TILE_SET)
    unseen.subtract(space for space in board if isinstance(space, Tile))
    unseen.subtract(tile for tile in (view.starting_tile, view.drawn_tile) if tile is not None)
    return +unseen


def outlook_of(view: Observation, board: Board, unseen: Counter[Tile]) -> Outlook:
    empties = sum(1 for space in board if space is None)
    to_come = view.supply_size + sum(player.holds_starting_tile for player in view.players)
    fill = min(1.0, to_come / empties) if empties else 0.0
    count = max(sum(unseen.values()), 1)
    valued = sum(tile.value * n for tile, n in unseen.items() if tile.kind is TileKind.RESOURCE)
    hazards = sum(tile.value * n for tile, n in unseen.items() if tile.kind is TileKind.HAZARD)
    return Outlook(fill * (valued + hazards) / count, fill * hazards / count)


def expected_payouts(board: Board, lines: Iterable[Line], players: int, outlook: Outlook) -> list[float]:
    """Each seat's expected gold from ``lines`` once the epoch is scored."""
    payouts = [0.0] * players
    for line in lines:
        for part in parts(board, line):
            tiles = [space for i in part if isinstance(space := board[i], Tile)]
            empties = sum(1 for i in part if board[i] is None)
            dragon = any(tile.kind is TileKind.DRAGON for tile in tiles)
            mine = any(tile.kind is TileKind.GOLD_MINE for tile in tiles)
            per_empty = outlook.per_empty_under_dragon if dragon else outlook.per_empty
            value = part_value(tiles) + empties * per_empty * (2 if mine else 1)
            for i in part:
                space = board[i]
                if isinstance(space, Castle):
                    payouts[space.owner] += value * effective_rank(board, i)
    return payouts


def lead(payouts: Sequence[float], seat: int) -> float:
    """My payout minus the average of the others'."""
    others = [gold for other, gold in enumerate(payouts) if other != seat]
    return payouts[seat] - sum(others) / len(others)


def placement_gain(
    board: Board, index: int, piece: Space, seat: int, players: int, outlook: Outlook
) -> float:
    """How much putting ``piece`` on ``index`` raises my expected lead."""
    touched = set(lines_through(index))
    if isinstance(piece, Tile) and piece.kind is TileKind.WIZARD:
        for near in neighbours(index):
            touched.update(lines_through(near))
    after = list(board)
    after[index] = piece
    before_lead = lead(expected_payouts(board, touched, players, outlook), seat)
    return lead(expected_payouts(after, touched, players, outlook), seat) - before_lead


if __name__ == "__main__":
    from kingmaker.sdk import run

    run(GreedyBot())
