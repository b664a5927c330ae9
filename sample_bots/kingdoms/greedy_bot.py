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
    NEIGHBOURS,
    Board,
    Line,
    Space,
    beside_wizard,
    effective_rank,
    lines_through,
    neighbours,
    part_value,
    parts,
)
from kingmaker.sdk import Bot, Request

# Bound once: the valuation compares kinds in its innermost loops.
_RESOURCE, _HAZARD, _MOUNTAIN = TileKind.RESOURCE, TileKind.HAZARD, TileKind.MOUNTAIN
_DRAGON, _GOLD_MINE, _WIZARD = TileKind.DRAGON, TileKind.GOLD_MINE, TileKind.WIZARD
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

    def _value(self, view: Observation, estimate: Estimate, action: object, unseen: Unseen) -> float:
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
            total = sum(count for _, count in unseen)
            weighted = sum(count * estimate.best_placement(tile) for tile, count in unseen)
            return weighted / max(total, 1)
        return 0.0


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ is several times slower
class PartFacts:
    """What a placement in one part of a line needs to know about that part."""

    number: int
    """Its place in ``Estimate.parts``."""
    spaces: Line
    """The part's board indices."""
    lead_ranks: float
    """My castle ranks there minus the other players' average."""
    base: int
    """The tiles' value before the gold mine doubles it: hazards, plus resources unless a dragon."""
    hazards: int
    empties: int
    expected_value: float
    """The part's expected value at scoring."""
    per_empty: float
    """What one empty space of this part is expected to add (gold mine included)."""
    dragon: bool
    mine: bool
    castles: bool
    """Whether any castle stands in the part."""


class Estimate:
    """Expected epoch payouts of one position, with fast gains for every placement.

    My lead is linear in each part's value times its lead in ranks, so a placement's gain is the
    change in the two parts it lands in (and, for the wizard, in the parts of the castles next to
    it; for a mountain, the two parts it cuts each line into): a few sums over facts gathered once
    per position, where recomputing the lines (``placement_gain``) would rescan the board."""

    def __init__(self, board: Board, seat: int, players: int, outlook: Outlook) -> None:
        self.board = board
        self.seat = seat
        self.players = players
        self.outlook = outlook
        self._best: dict[str, float] = {}
        """Each tile's best placement, by the tile's name (a str caches its hash; a Tile's is
        computed anew each time, through its kind's)."""
        self._cuts: dict[Line, dict[int, float]] = {}
        self._lines: dict[TileKind, dict[int, tuple[float, float]]] = {}
        self._specials: dict[TileKind, dict[int, float]] = {}
        self.boosted = beside_wizard(board)
        self.empty = [i for i, space in enumerate(board) if space is None]
        self.parts: list[PartFacts] = []
        self.facts: dict[int, list[PartFacts]] = {}
        """The parts (row first, then column) through every space that is not a mountain."""
        for part in parts_of_every_line(board):
            facts = self._part_facts(part)
            self.parts.append(facts)
            for i in part:
                self.facts.setdefault(i, []).append(facts)

    def _part_facts(self, part: Line) -> PartFacts:
        piece = _Piece()
        for i in part:
            piece.add(self.board[i], i in self.boosted, self.seat)
        per_empty = self.outlook.per_empty_under_dragon if piece.dragon else self.outlook.per_empty
        double = 2 if piece.mine else 1
        return PartFacts(
            number=len(self.parts),
            spaces=part,
            lead_ranks=piece.lead_ranks(self.players),
            base=piece.base(),
            hazards=piece.hazards,
            empties=piece.empties,
            expected_value=piece.value(self.outlook),
            per_empty=per_empty * double,
            dragon=piece.dragon,
            mine=piece.mine,
            castles=bool(piece.my_ranks or piece.other_ranks),
        )

    def castle_gain(self, index: int, rank: int) -> float:
        """My expected lead gained by putting my castle of ``rank`` on the empty ``index``."""
        effective = rank + (1 if index in self.boosted else 0)
        gain = 0.0
        for facts in self.facts[index]:
            # The space is no longer empty: the part loses one empty's expectation, for everyone.
            value_after = facts.expected_value - facts.per_empty
            gain += value_after * effective - facts.per_empty * facts.lead_ranks
        return gain

    def tile_gain(self, index: int, tile: Tile) -> float:
        """My expected lead gained by putting ``tile`` on the empty ``index``."""
        kind = tile.kind
        if kind is _RESOURCE or kind is _HAZARD:
            slope, cost = self._gain_lines(kind)[index]
            return tile.value * slope - cost
        if kind is _MOUNTAIN:
            return self._mountain_gain(index)
        return self._special_gains(kind)[index]

    def _special_gains(self, kind: TileKind) -> dict[int, float]:
        """``tile_gain`` of the dragon, the gold mine or the wizard on every empty space. What
        each part gains depends on the part alone, so it is worked out once per part."""
        gains = self._specials.get(kind)
        if gains is None:
            terms = [
                (self._special_value(facts, kind) - facts.expected_value) * facts.lead_ranks
                for facts in self.parts
            ]
            gains = self._specials[kind] = {}
            for index in self.empty:
                gain = 0.0
                for facts in self.facts[index]:
                    gain += terms[facts.number]
                if kind is _WIZARD:
                    gain += self._wizard_bonus(index)
                gains[index] = gain
        return gains

    def _special_value(self, facts: PartFacts, kind: TileKind) -> float:
        """A part's expected value once a dragon, gold mine or wizard fills one of its empties."""
        empties_after = facts.empties - 1
        if kind is _DRAGON:
            return (facts.hazards + empties_after * self.outlook.per_empty_under_dragon) * (
                2 if facts.mine else 1
            )
        per_empty = facts.per_empty / (2 if facts.mine else 1)
        if kind is _GOLD_MINE:
            return (facts.base + empties_after * per_empty) * 2
        return facts.expected_value - facts.per_empty  # the wizard is worth nothing itself

    def _wizard_bonus(self, index: int) -> float:
        """My lead gained from the castles next to a wizard on ``index`` counting a rank higher."""
        gain = 0.0
        for near in NEIGHBOURS[index]:
            castle = self.board[near]
            if not isinstance(castle, Castle) or near in self.boosted:
                continue
            weight = 1.0 if castle.owner == self.seat else -1.0 / (self.players - 1)
            for facts in self.facts[near]:
                value = facts.expected_value
                if index in facts.spaces:
                    value -= facts.per_empty  # the wizard fills one of this part's empties
                gain += weight * value
        return gain

    def _mountain_gain(self, index: int) -> float:
        """A mountain cuts the row part and the column part through ``index`` in two each."""
        gain = 0.0
        for facts in self.facts[index]:
            if not facts.castles:
                continue  # nobody's lead changes where nobody has a castle: the term is 0
            cuts = self._cuts.get(facts.spaces)
            if cuts is None:
                cuts = self._cuts[facts.spaces] = self._cut_worths(facts.spaces)
            gain += cuts[index] - facts.expected_value * facts.lead_ranks
        return gain

    def _cut_worths(self, part: Line) -> dict[int, float]:
        """For each empty space of ``part``, the two pieces' expected value times my lead in
        ranks there if a mountain cut the part at it: one scan from each end, not one per cut."""
        worths = dict.fromkeys((i for i in part if self.board[i] is None), 0.0)
        for order in (part, part[::-1]):
            piece = _Piece()
            for i in order:
                if i in worths and (piece.my_ranks or piece.other_ranks):  # (no castle: worth 0)
                    worths[i] += piece.worth(self.outlook, self.players)
                piece.add(self.board[i], i in self.boosted, self.seat)
        return worths

    def best_placement(self, tile: Tile) -> float:
        """The gain of the best empty space for ``tile`` (kept: drawing asks it of every tile)."""
        best = self._best.get(tile.name)
        if best is None:
            kind = tile.kind
            if kind is _RESOURCE or kind is _HAZARD:
                value = tile.value
                best = max(value * slope - cost for slope, cost in self._gain_lines(kind).values())
            elif kind is _MOUNTAIN:
                best = max(self._mountain_gain(i) for i in self.empty)
            else:
                best = max(self._special_gains(kind).values())
            self._best[tile.name] = best
        return best

    def _gain_lines(self, kind: TileKind) -> dict[int, tuple[float, float]]:
        """Per empty space, ``tile_gain`` of a resource (or hazard) as a line in the tile's value:
        (slope, cost) with gain = value * slope - cost, so each value costs one product per space.
        The tile takes an empty's expectation (cost) and counts in both parts (``_counted``)."""
        lines = self._lines.get(kind)
        if lines is None:
            # What each part adds depends on the part alone: worked out once per part.
            slopes = [_counted(facts, kind) * facts.lead_ranks for facts in self.parts]
            costs = [facts.per_empty * facts.lead_ranks for facts in self.parts]
            lines = self._lines[kind] = {}
            for i in self.empty:
                row, column = self.facts[i]  # an empty space lies in one part of each
                # (from 0.0 as the sums they replaced: the same values, the sign of a zero too)
                lines[i] = (
                    0.0 + slopes[row.number] + slopes[column.number],
                    0.0 + costs[row.number] + costs[column.number],
                )
        return lines


def _counted(facts: PartFacts, kind: TileKind) -> int:
    """How many times an ordinary tile's value counts in a part: twice beside the gold mine,
    not at all for a resource beside the dragon."""
    return 0 if facts.dragon and kind is _RESOURCE else 2 if facts.mine else 1


class _Piece:
    """Running sums over spaces of one part: a whole part (``Estimate._part_facts``) or the
    piece of it seen so far (``Estimate._cut_worths``)."""

    def __init__(self) -> None:
        self.resources = self.hazards = self.empties = 0
        self.dragon = self.mine = False
        self.my_ranks = self.other_ranks = 0

    def add(self, space: Space, boosted: bool, seat: int) -> None:
        if space is None:
            self.empties += 1
        elif isinstance(space, Castle):
            rank = space.rank + 1 if boosted else space.rank
            if space.owner == seat:
                self.my_ranks += rank
            else:
                self.other_ranks += rank
        elif space.kind is _RESOURCE:
            self.resources += space.value
        elif space.kind is _HAZARD:
            self.hazards += space.value
        elif space.kind is _DRAGON:
            self.dragon = True
        elif space.kind is _GOLD_MINE:
            self.mine = True

    def base(self) -> int:
        """The tiles' value before the gold mine doubles it: hazards, plus resources unless a dragon."""
        return self.hazards if self.dragon else self.hazards + self.resources

    def value(self, outlook: Outlook) -> float:
        """The expected value at scoring: the tiles, and each empty space's expectation."""
        per_empty = outlook.per_empty_under_dragon if self.dragon else outlook.per_empty
        return (self.base() + self.empties * per_empty) * (2 if self.mine else 1)

    def lead_ranks(self, players: int) -> float:
        """My castle ranks here minus the other players' average."""
        return self.my_ranks - self.other_ranks / (players - 1)

    def worth(self, outlook: Outlook, players: int) -> float:
        """The expected value times my lead in ranks here."""
        return self.value(outlook) * self.lead_ranks(players)


_PARTS_BY_MOUNTAINS: dict[tuple[int, ...], list[Line]] = {}


def parts_of_every_line(board: Board) -> list[Line]:
    """Every line's parts, in scoring order. They depend only on where the mountains stand (a
    few hundred ways for two mountains), so each arrangement is cut once."""
    mountains = tuple(
        i for i, space in enumerate(board) if isinstance(space, Tile) and space.kind is _MOUNTAIN
    )
    found = _PARTS_BY_MOUNTAINS.get(mountains)
    if found is None:
        found = _PARTS_BY_MOUNTAINS[mountains] = [part for line in ALL_LINES for part in parts(board, line)]
    return found


def board_of(view: Observation) -> list[Space]:
    """The observation's board as the engine's flat list of spaces."""
    return [cell.castle or cell.tile for row in view.board for cell in row.cells]


Unseen = list[tuple[Tile, int]]
"""Tiles not seen yet and how many of each, in the order they first appear in the supply."""

_DISTINCT_TILES = tuple(dict.fromkeys(TILE_SET))
_TILE_COUNTS = tuple(TILE_SET.count(tile) for tile in _DISTINCT_TILES)
_SLOT_BY_NAME = {tile.name: slot for slot, tile in enumerate(_DISTINCT_TILES)}
assert len(_SLOT_BY_NAME) == len(_DISTINCT_TILES), "each kind of tile has a name of its own"


def unseen_tiles(view: Observation, board: Board) -> Unseen:
    """Tiles that may still come out of the supply (exactly the supply in No Luck). Counted by
    name (one per kind of tile): hashing a Tile costs more than the rest of the count."""
    if view.no_luck:
        return list(Counter(view.face_up_supply).items())
    counts = list(_TILE_COUNTS)
    for space in board:
        if isinstance(space, Tile):
            counts[_SLOT_BY_NAME[space.name]] -= 1
    for tile in (view.starting_tile, view.drawn_tile):
        if tile is not None:
            counts[_SLOT_BY_NAME[tile.name]] -= 1
    return [(tile, count) for tile, count in zip(_DISTINCT_TILES, counts, strict=True) if count > 0]


def outlook_of(view: Observation, board: Board, unseen: Unseen) -> Outlook:
    empties = sum(1 for space in board if space is None)
    to_come = view.supply_size + sum(player.holds_starting_tile for player in view.players)
    fill = min(1.0, to_come / empties) if empties else 0.0
    count = max(sum(n for _, n in unseen), 1)
    valued = sum(tile.value * n for tile, n in unseen if tile.kind is TileKind.RESOURCE)
    hazards = sum(tile.value * n for tile, n in unseen if tile.kind is TileKind.HAZARD)
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
