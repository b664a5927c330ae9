"""Kingsville, 2 to 4 players, with this project's own card set (edition ``kingmaker-1``).

For bot authors
---------------
Three ages. Each player has a castle of 5 slots; a slot holds a theatre (above), a person with
their order (middle) and a farm (below). Everyone starts with the King in slot 0 under a theatre
and over a farm, 5 gold and 5 wood. Per age, the wonder deck has 3 cards per player and the order
deck 5 per player; two face-up displays show players + 1 wonders and players + 1 orders.

On your turn you must take one of six actions:

- ``BuildTheatre`` / ``BuildFarm``: 2 wood + 1 per one of that kind you own; it goes in the
  left-most slot without one (at most one per slot).
- ``Recruit(person)``: 5 gold, a basic person (worker, artist, diplomat, merchant) from the
  supply into your left-most empty slot.
- ``Upgrade(slot, into)``: 10 gold, the basic person in ``slot`` becomes an advanced one (trader,
  architect, squire) that shares a symbol with them; they keep their order.
- ``TakeOrder(order, slot)``: free; the order goes to the person in ``slot``, replacing (and
  discarding) any order they had.
- ``BuildWonder(wonder)``: pay its cost; wonders do not use slots.

Then your people carry out their orders left to right. A step with a role icon happens only if
the person has that symbol; a step with a cost is optional: when you can pay it you are asked
``ChooseOptional(perform)``. After that both displays are refilled; if a deck cannot fill its
display the age ends: every person without a theatre above costs 5 points, every person in a slot
without a farm is lost with their order, and every wonder built so far gives its age benefit.
Then the next age's decks and displays replace the old ones. After Age III the round is finished
so all have had equal turns. Final score: points, +10 most farms, +10 most theatres (ties all
score), wonders 4, 5, 6, ..., Age III wonder special points, 5 per basic person, 10 per
advanced person or King. Ties: most gold + wood left, then a shared place.

The whole card set is in ``cards.json`` next to this file, and every card in an observation
carries its full text. docs/kingsville-edition.md explains each choice.

Decisions where the rulebook is silent (reasons in docs/kingsville-edition.md)
---------------------------------------------------------------------------------
- Symbols: TOOLS (worker), ARTS (artist), DIPLOMACY (diplomat), TRADE (merchant); trader
  TRADE+DIPLOMACY, architect TOOLS+ARTS, squire TOOLS+DIPLOMACY; the King has all four.
- Supply: 4 of each basic person, 3 of each advanced one, one King per player (never in supply).
  Upgraded and lost people return to the supply.
- 5 castle slots. A recruit goes to the left-most empty slot; with no empty slot you cannot recruit.
  With all 5 theatres (farms) you cannot build another.
- An order may replace another order, even one of the same name; the replaced card is discarded.
- Orders are carried out on every turn of their owner, including the turn they were taken.
- The age ends only when a display has a gap its deck cannot fill (a turn that takes no card
  never ends the age). At the end of Age III no new cards come; the rest of the round is played
  with what is left in the displays (there is always at least one order left).
- Wonder benefits (Ages I and II) are gained at every end of age from the age of building on;
  Age III wonders have no age benefit but special points.
- "Worker" in the final scoring means any person (the rulebook counts the King as an advanced
  worker). Points may go below zero; gold and wood never do.
- The starting player is drawn from the RNG first, then each age's wonder and order decks are
  shuffled (Age I to III).
- No seat has secrets; the only unknown is the deck order, which nobody sees.
"""

from __future__ import annotations

from collections.abc import Mapping

from kingmaker.games.api import Game, GameSpec, GameState, OptionValue, Seat
from kingmaker.games.kingsville.actions import ACTION_TYPES
from kingmaker.games.kingsville.cards import CARDS
from kingmaker.games.kingsville.determinize import determinize
from kingmaker.games.kingsville.observation import KingsvilleObservation, spectator_view
from kingmaker.games.kingsville.rng_tools import reshuffled
from kingmaker.games.kingsville.state import KingsvilleState
from kingmaker.games.rng import SeededRng

SPEC = GameSpec(
    name="kingsville",
    title="Kingsville",
    edition=CARDS.edition,
    min_players=2,
    max_players=4,
    chance=True,
    hidden_information=False,
    simultaneous=False,
    action_types=ACTION_TYPES,
    observation_type=KingsvilleObservation,
    # Turns are bounded: per age a player makes at most 8 recruits or upgrades, and at most
    # 4P orders and 2P wonders are taken before a deck runs dry; farms and theatres are at most
    # 8 per game. That is under 51P turns, each with at most 10 optional steps: 3000 suffices.
    max_decisions=3000,
)
KingsvilleState.spec = SPEC


def _create(players: int, seed: int, options: Mapping[str, OptionValue]) -> GameState:
    return KingsvilleState(players, SeededRng(seed))


def _perturb(state: GameState, seat: Seat | None, seed: int) -> GameState:
    assert isinstance(state, KingsvilleState)
    return reshuffled(state, seed) if seat is None else state.clone()


GAME = Game(
    spec=SPEC, create=_create, perturb_secrets=_perturb, determinize=determinize, spectate=spectator_view
)

__all__ = ["GAME", "SPEC", "KingsvilleState"]
