"""The facts about Kingdoms that the referee needs up front."""

from __future__ import annotations

from kingmaker.games.api import GameSpec
from kingmaker.games.kingdoms.actions import ACTION_TYPES
from kingmaker.games.kingdoms.observation import Observation
from kingmaker.games.kingdoms.options import OPTIONS
from kingmaker.games.kingdoms.pieces import SPACES, TILE_SET

MAX_PLAYERS = 4
MOST_EPOCHS = 6
"""Down to the Last Castle's bound: 4 players hold 40 castles; an epoch that fills the board
spends at least 30 - 23 = 7 of them, and once fewer than 7 are left nobody can fill the board, so
the epoch only ends when nobody can act, which means everybody has placed their last castle."""

MAX_DECISIONS = MOST_EPOCHS * (SPACES + len(TILE_SET) + SPACES * (MAX_PLAYERS - 1))
"""Per epoch: one decision per space filled, one more per tile drawn before it is placed, and at
most (players - 1) passes before each placement."""

SPEC = GameSpec(
    name="kingdoms",
    title="Reiner Knizia's Kingdoms",
    edition="ffg-2011/kingmaker-1",
    min_players=2,
    max_players=MAX_PLAYERS,
    chance=True,
    hidden_information=True,
    simultaneous=False,
    action_types=ACTION_TYPES,
    observation_type=Observation,
    max_decisions=MAX_DECISIONS,
    options=OPTIONS,
    score_name="gold",
)
