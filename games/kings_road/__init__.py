"""King's Road (Reiner Knizia, Grail Games 2017): area majority with simultaneous card play.

For bot authors
---------------
Eight regions, numbered 1-8 by their banners, each paying points for first, second, third (and
fourth) place (``data.REGIONS``). Every player has twenty influence markers and eleven cards:
one per region, the Knight, the Dragon and the Witch. Each round:

1. Every seat chooses, at once and in secret, three cards (fewer when its supply holds fewer
   markers; none when it holds none): one joint decision, ``Phase.CHOOSE_CARDS``.
2. The plays are revealed. A region card puts one marker on its region. The Knight, always the
   last card, puts one more marker on the region card just before it. Each Dragon makes one
   more region score this round and is gone. The Witch is played alone; its player chooses
   again, after everyone else has resolved, together with the other Witch players
   (``Phase.WITCH_RECHOOSE``), and the Witch is gone.
3. The King's region scores, then one more region along the route per Dragon. Places go by
   influence (markers, plus one per noble); only ``players - 1`` places are paid; tied players
   get the value of the lowest place they share, nothing if it is not paid. A single leader
   turns one of its markers into the region's noble (replacing another player's); a tie keeps
   the old noble. Each noble in the region then earns its owner one point per region in its
   connected chain of that owner's nobles along the roads. Other markers go back to supply.
4. The King moves to the region after the last one scored. Route: 1, 6, 4, 7, 3, 5, 2, 8.

The round in which someone reaches 40 (or round 100, see below) is the last: every region
not scored in it is scored for influence only (no nobles made or paid; standing nobles still
count as influence). Most points wins, then most nobles on the board; a tie beyond that is
shared (equal ranks).

Option ``permanent_nobles`` (the rulebook's variant): nobles are never removed, a new leader's
noble stacks on the others, one per player per region, and every noble there earns its chain.

Decisions where the rulebook is silent or ambiguous
---------------------------------------------------
- Hidden information: none between decisions. A hand is the eleven cards less the Dragon and
  Witch, and both are revealed when used, so every hand is public (``PlayerView.has_dragon``,
  ``has_witch``). The only secret is the play being chosen, which the referee collects from all
  acting seats before it reveals them together.
- A play is listed once per distinct effect: the Witch alone, since its two
  companions go back unseen and do nothing; other cards in ascending order with the Knight last
  after the card it reinforces. At most 157 legal actions instead of 990 ordered triples.
- The Knight reinforces only a region card just before it (after a Dragon, or alone, it adds
  nothing) and always adds its marker. With two markers left a play of two cards may end with
  the Knight, which then reinforces the first.
- A seat with no marker in supply still acts, with the empty play as its only legal action, so
  every round is one decision of every seat.
- The Witch re-choice counts cards from the same supply (nothing was placed) and may include
  the Dragon and the Knight; Dragons played then still add scored regions.
- Scoring order within a round is the route order, so a noble crowned in the King's region
  already counts in the chain of a Dragon region scored after it.
- The final scoring goes round the route from the King's new position; its markers go back
  to supply like any other (it changes nothing but keeps every count at twenty).
- Ties for the lead with nothing placed (every count zero) crown no noble.
- Banner values: only the Dark Tower (5-4-2-1) is printed; the others are the project's
  edition (the table "The regions" in docs/games/kings_road.md).
- There is no chance: the seed is accepted and ignored.
- The book's game can stall: two players who mirror each other tie everywhere, and a tie of two
  in a two-player game pays nothing, so nobody ever reaches 40. So round 100
  is always the last: the game then ends as if someone had reached 40, final scoring included.
  Ordinary games end by round 20, so this never touches them; it lets every game end on its
  own rules instead of at the referee's bound on decisions.
"""

from __future__ import annotations

from collections.abc import Mapping

from kingmaker.games.api import Game, OptionValue
from kingmaker.games.kings_road.determinize import determinize
from kingmaker.games.kings_road.observation import spectator_view
from kingmaker.games.kings_road.state import PERMANENT_NOBLES, SPEC, KingsRoadState
from kingmaker.games.kings_road.values import (
    Card,
    Observation,
    Phase,
    PlayCards,
    PlayerView,
    RegionView,
    Reveal,
)


def _create(players: int, seed: int, options: Mapping[str, OptionValue]) -> KingsRoadState:
    # King's Road has no chance: the seed is accepted for the common interface and not used.
    return KingsRoadState(players, permanent_nobles=bool(options[PERMANENT_NOBLES]))


GAME = Game(spec=SPEC, create=_create, determinize=determinize, spectate=spectator_view)

__all__ = [
    "GAME",
    "Card",
    "KingsRoadState",
    "Observation",
    "Phase",
    "PlayCards",
    "PlayerView",
    "RegionView",
    "Reveal",
]
