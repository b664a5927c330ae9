"""Reiner Knizia's Kingdoms (Fantasy Flight 2011 rulebook), 2 to 4 players: the reference game.

The game for bot authors
------------------------
The board has 5 rows and 6 columns; in actions and observations row 0 is the top row and column
0 the left column. Every player starts with 50 gold and castles of ranks 1 to 4: three rank-2,
two rank-3, one rank-4, and four rank-1 castles with 2 players, three with 3, two with 4. There
are 23 tiles (see ``pieces.py``): twelve resources (two each of +1..+6), six hazards (-1..-6),
two mountains, the dragon, the gold mine and the wizard.

The game lasts three epochs. At the start of each, every player secretly draws a starting tile.
Seats play in turn order 0, 1, 2, ... (seat ``s + 1`` sits to the left of seat ``s``). On a turn
a player must do one of: place a castle on an empty space (``PlaceCastle``); draw a random tile
(``DrawTile``), which that same seat then sees and places as a second decision
(``PlaceDrawnTile``); or place its starting tile (``PlaceStartingTile``). ``Pass`` is legal only
when none of these is possible, and then it is the only legal action.

The epoch ends when the board is full. Then every row (top first) and every column (left first)
is scored for every player: in each part of the line (mountains cut a line into parts scored
separately) add the resources and the hazards; a dragon cancels the resources of its part; a gold
mine doubles the value of the other tiles of its part, negative or positive. Each player gains
(or pays) that value times the total rank of their castles in the part; a castle orthogonally
next to the wizard counts one rank higher, in its row and in its column. Then the rank-1 castles
on the board return to their owners and all other placed castles are spent for good; all tiles go
back into the supply. The richest player starts the next epoch. After the third epoch the player
with the most gold wins.

Variants (match options, three booleans that combine freely; all false is the standard game):

- ``down_to_the_last_castle``: everyone has all ten castles of a colour (four rank-1) whatever
  the player count; every placed castle, rank 1 included, is spent at the end of an epoch. The
  game ends after the epoch in which some player has placed their last castle. An epoch also ends
  when nobody can act although the board is not full; empty spaces are worth 0.
- ``no_luck``: no starting tiles; the supply lies face up (``Observation.face_up_supply``) and
  instead of drawing a player picks a tile (``ChooseTile``), then places it (``PlaceDrawnTile``).
- ``score_as_you_go``: each row and column is scored the moment its last space is filled, not at
  the end of the epoch.

Decisions where the rulebook is silent or ambiguous
----------------------------------------------------
- Gold never goes below zero: a player who owes more than they hold pays all they hold. The book
  pays with physical coins from a bank and gives no rule for debt, and it prescribes an order of
  scoring (rows from the top, then columns from the left) that only matters if payments stop at
  zero; the engine follows that order part by part (parts of a line from the top or left).
- Ties for the richest player between epochs: of the tied players, the first in turn order
  starting from the seat that would have played next had the epoch gone on. Turn order simply
  continues, so no extra chance or rule is needed.
- Final ties: the book names no tie-breaker, so tied players share the place (ranks 1, 1, 3).
- The first player of epoch 1 is drawn with the game's seeded RNG, after the starting tiles
  (which are drawn in seat order).
- A starting tile still unplayed when the epoch ends is not scored and goes back into the supply
  with all other tiles; it costs nothing.
- A player with no castle and no starting tile must draw while the supply has tiles; with nothing
  at all to do they pass (an explicit ``Pass``, so every turn is a decision a bot sees). In the
  standard game the board always fills (23 tiles and at least 8 rank-1 castles for 30 spaces).
- A drawn tile is seen only by the player who drew it until it is placed (it is public from then
  on); a tile chosen in No Luck was face up, but it is shown the same way, to its taker.
- Down to the Last Castle: "placed his last castle" means holding no castle when the epoch ends.
  With Score as You Go, lines still unfilled when such an epoch ends are scored then, empties 0.
- Score as You Go scores a whole row or column once full (not a mountain-separated part as it
  fills); a placement that fills a row and a column scores the row first. A line is scored as it
  stands then: a wizard placed later beside one of its castles does not rescore it.
- Dragon and gold mine together in one part: resources are cancelled first, then the hazards are
  doubled (the book's "Column 2" example). Both act only within their own part of a line.
- Tiles of the same kind and value are identical (two "+4 Windmill" tiles). Tile names missing
  from the book are the project edition's: +6 City, -1 Swamp, -2 Bandits, -4 Plague.
- Castles in a player's hand are public (they stand in front of the player in the box game).
"""

from __future__ import annotations

from collections.abc import Mapping

from kingmaker.games.api import Game, GameState, OptionValue
from kingmaker.games.kingdoms.actions import (
    ChooseTile,
    DrawTile,
    Pass,
    PlaceCastle,
    PlaceDrawnTile,
    PlaceStartingTile,
)
from kingmaker.games.kingdoms.determinize import determinize
from kingmaker.games.kingdoms.observation import Cell, Observation, PlayerView, Row, spectator_view
from kingmaker.games.kingdoms.options import Variants
from kingmaker.games.kingdoms.perturb import perturb_secrets
from kingmaker.games.kingdoms.pieces import Castle, Tile, TileKind
from kingmaker.games.kingdoms.spec import SPEC
from kingmaker.games.kingdoms.state import KingdomsState
from kingmaker.games.rng import SeededRng


def create(players: int, seed: int, options: Mapping[str, OptionValue]) -> GameState:
    """A new game from validated options."""
    return KingdomsState(players, SeededRng(seed), Variants.from_options(options))


GAME = Game(
    spec=SPEC,
    create=create,
    perturb_secrets=perturb_secrets,
    determinize=determinize,
    spectate=spectator_view,
)

__all__ = [
    "GAME",
    "Castle",
    "Cell",
    "ChooseTile",
    "DrawTile",
    "KingdomsState",
    "Observation",
    "Pass",
    "PlaceCastle",
    "PlaceDrawnTile",
    "PlaceStartingTile",
    "PlayerView",
    "Row",
    "Tile",
    "TileKind",
    "Variants",
]
