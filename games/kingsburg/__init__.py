"""Kingsburg (Chiarvesio & Iennaco, 2007) for 2 to 5 players: five years of eight phases.

For bot authors. Each year: 1 the King's aid, 2 spring, 3 the King's reward, 4 summer,
5 the King's Envoy, 6 autumn, 7 recruitment, 8 the winter battle. In each productive season
(spring, summer, autumn) everyone rolls three coloured dice (plus white dice: the King's aid in
spring, the Farms every season), may use the Statue/Chapel re-rolls, then in turn order
(lowest dice total first) places dice groups on the 18 advisors until everyone has passed; the
advisors give their help from #1 to #18; then everyone may build one building. The winter
battle compares soldiers + the King's die + building modifiers with the year's enemy.
Score = VP; ties are broken by goods, then buildings, else shared.

Every decision is a request: ``Observation.decision`` says which, ``legal_actions`` lists the
options (see ``actions.py``). The only hidden information is the enemies deck; a seat that
influenced the General or the Queen sees this year's card in ``Observation.enemy``.

Decisions taken where the rulebook is silent or ambiguous (and why):
- The King's aid to tied players is one simultaneous decision of all tied seats (each picks a
  good at once, as at the table nobody waits for the others).
- The dice are rolled by the engine (no decision); draws go seat by seat. Re-rolls are asked
  in the turn order of the previous season, which the book says is used for them. The Statue
  re-rolls "one die": the player says whether a coloured or a white die, since that matters.
- One "+2" token per dice group at most (the rulebook's rule; the summary's "any number" is
  read as any number of tokens held, one per group).
- A player with no legal placement is passed automatically; passing voluntarily is allowed.
- The Smuggler is paid 1 VP, so a player with 0 VP cannot influence it; VP never drop below 0
  (the scoring track starts at 0) when buildings fall or battles are lost.
- The Envoy may join any influenced advisor, the player's own group and the neutral 2-player
  dice included; one Envoy exists, so an advisor holds at most two groups, which get their
  gifts in the order placed. A second building in one season is the Envoy's double build.
- The Alchemist's trade is optional ("you can trade"): ``Pass`` declines it.
- A gift whose only option is forced is applied without asking.
- The end of a productive season: the Inn's token (summer), the Embassy's VP, then each Town
  Hall owner, in turn order, may pay a token or a good for 1 VP.
- The Envoy is (re)assigned at every phase 5; an unused token returns then, as the book says.
- A lost battle's losses follow the card's order (named goods, goods of choice, building,
  VP); the building and VP losses do not depend on goods, so they are applied before the
  loser is asked which goods of choice to give up. A player holding no more goods than the
  card demands loses them all without being asked. The bonus VP goes to every victor tied
  for the highest combat value.
- The 2-player neutral dice are rolled before the players' dice, each productive season.
- The enemy cards come from a single public source (confidence medium-low): the table "The
  enemies" in docs/games/kingsburg.md.
"""

from __future__ import annotations

from collections.abc import Mapping

from kingmaker.games.api import Game, GameSpec, GameState, OptionValue
from kingmaker.games.kingsburg.actions import ACTION_TYPES
from kingmaker.games.kingsburg.determinize import determinize
from kingmaker.games.kingsburg.secrets import perturb_secrets
from kingmaker.games.kingsburg.state import KingsburgState, spectator_view
from kingmaker.games.kingsburg.views import Observation
from kingmaker.games.rng import SeededRng

SPEC = GameSpec(
    name="kingsburg",
    title="Kingsburg",
    edition="2007 base game (project engine v1)",
    min_players=2,
    max_players=5,
    chance=True,
    hidden_information=True,
    simultaneous=True,
    action_types=ACTION_TYPES,
    observation_type=Observation,
    max_decisions=20_000,
    score_name="VP",
)
KingsburgState.spec = SPEC


def create(players: int, seed: int, options: Mapping[str, OptionValue]) -> GameState:
    return KingsburgState(players, SeededRng(seed))


GAME = Game(
    spec=SPEC,
    create=create,
    perturb_secrets=perturb_secrets,
    determinize=determinize,
    spectate=spectator_view,
)

__all__ = ["GAME", "SPEC", "KingsburgState"]
