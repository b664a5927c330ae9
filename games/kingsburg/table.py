"""The parts of a Kingsburg game that the season's steps and the observations work on.

``KingsburgState`` has them all; ``season`` and ``observation`` name them through this protocol
so that neither imports the state, which imports both."""

from __future__ import annotations

from typing import Protocol

from kingmaker.games.api import Action
from kingmaker.games.kingsburg.data import EnemyCard
from kingmaker.games.kingsburg.province import Province
from kingmaker.games.kingsburg.views import Decision, DiceGroup, Phase
from kingmaker.games.rng import Rng


class KingsburgTable(Protocol):
    rng: Rng
    turn_order: list[int]
    provinces: list[Province]
    court: list[list[DiceGroup]]
    year: int
    phase: Phase
    decision: Decision
    acting: tuple[int, ...]
    queue: list[int]
    cursor: int
    gift_advisor: int
    gift_group: int
    envoy_holder: int
    king_die: int
    revealed: bool
    past_enemies: list[EnemyCard]

    @property
    def players(self) -> int: ...

    def is_over(self) -> bool: ...

    def enemy(self) -> EnemyCard: ...

    def ask(self, seat: int, decision: Decision, legal: tuple[Action, ...]) -> None: ...

    def kings_reward(self) -> None: ...

    def kings_envoy(self) -> None: ...

    def begin_recruitment(self) -> None: ...
