"""The shared game interface: what every rules engine offers the referee, the SDK and the tests.

A game is a value you can hold in a test. ``Game.new(players, seed, options)`` makes a
``GameState``; the state says who must act (``to_act``), what each of them may do
(``legal_actions``), what each seat may see (``observation``), takes the joint action of the
seats that act (``apply``) and, once ``is_over``, gives the ``result``.

Decisions are joint: ``to_act()`` names one seat for an ordinary turn and several seats for a
simultaneous decision, and ``apply`` takes one action for each of them at once, so no seat's
choice is ever visible to another before all have chosen.

Chance is drawn inside ``apply`` from a seeded RNG kept in the state (see ``rng.py``), so seed
plus the logged joint actions replays a match exactly.

Actions and observations are frozen dataclasses made of ints, strs, bools, enums, tuples,
optionals and other such dataclasses: values that the codec can map onto the game's protobuf
messages field by field, and that ``serial.py`` can write as JSON.
"""

from __future__ import annotations

import copy
import operator
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, ClassVar, Self

Seat = int
"""A seat number, 0 to players - 1, in the order the match lists its bots."""

Action = Any
"""A frozen dataclass instance of one of the game's action types."""

Observation = Any
"""A frozen dataclass instance of the game's observation type."""

OptionValue = bool | int | str


class RulesError(ValueError):
    """An action that the rules do not allow here, or a malformed joint action."""


class OptionsError(ValueError):
    """Match options the game does not know, or values it does not accept."""


@dataclass(frozen=True)
class OptionSpec:
    """One match option a game accepts."""

    name: str
    default: OptionValue
    help: str
    choices: tuple[OptionValue, ...] = ()
    """The accepted values; empty means any value of the default's type."""


@dataclass(frozen=True)
class GameSpec:
    """The facts about a game, declared up front."""

    name: str
    """Registry name, lower case with underscores: ``kingdoms``, ``kings_road``."""
    title: str
    edition: str
    """Rules edition, stored with every match so an old log replays under its own rules."""
    min_players: int
    max_players: int
    chance: bool
    hidden_information: bool
    simultaneous: bool
    action_types: tuple[type, ...]
    """Every concrete action dataclass; the codec and the JSON log resolve actions by these."""
    observation_type: type
    max_decisions: int
    """An upper bound on joint decisions in one game; the referee adjudicates past it."""
    options: tuple[OptionSpec, ...] = ()
    score_name: str = "points"
    """What ``Result.scores`` count, for tables: ``gold``, ``VP``, ``points``."""


@dataclass(frozen=True)
class Result:
    """How a finished game ended for each seat."""

    scores: tuple[int, ...]
    """Each seat's final score in the game's own unit."""
    ranks: tuple[int, ...]
    """Each seat's place, 1 for the winner; seats the rules cannot separate share a place."""


def ranks_from_keys(keys: list[tuple[int, ...]]) -> tuple[int, ...]:
    """Competition ranks (1, 2, 2, 4) from per-seat sort keys where larger is better."""
    return tuple(1 + sum(1 for other in keys if other > mine) for mine in keys)


class GameState(ABC):
    """A game in progress. ``apply`` changes it in place; ``clone`` gives an independent copy."""

    spec: ClassVar[GameSpec]

    @property
    @abstractmethod
    def players(self) -> int:
        """How many seats the game has."""

    @abstractmethod
    def to_act(self) -> tuple[Seat, ...]:
        """The seats that must act now, ascending; empty once the game is over."""

    @abstractmethod
    def legal_actions(self, seat: Seat) -> tuple[Action, ...]:
        """What ``seat`` may do now, in a stable order; empty if ``seat`` need not act."""

    @abstractmethod
    def apply(self, actions: Mapping[Seat, Action]) -> None:
        """Apply one action for each seat in ``to_act()``; raise ``RulesError`` if any is illegal."""

    @abstractmethod
    def observation(self, seat: Seat) -> Observation:
        """Everything ``seat`` may know now, built from scratch: public facts and its own secrets."""

    @abstractmethod
    def is_over(self) -> bool:
        """True once the game has ended."""

    @abstractmethod
    def result(self) -> Result:
        """The final scores and ranks; only valid once ``is_over()``."""

    def clone(self) -> Self:
        """An independent copy, RNG included (so search bots can look ahead)."""
        return copy.deepcopy(self)

    def check_joint_action(self, actions: Mapping[Seat, Action]) -> None:
        """Raise ``RulesError`` unless ``actions`` holds one legal action per acting seat."""
        acting = self.to_act()
        if set(actions) != set(acting):
            raise RulesError(f"expected actions for seats {list(acting)}, got {sorted(actions)}")
        for seat, action in actions.items():
            legal = self.legal_actions(seat)
            # Look for the very object first, at C speed: callers mostly pass back an action
            # legal_actions handed out, and ``in`` alone would call the dataclass __eq__ (Python)
            # on every entry before it. Found or not, the answer is that of ``in``.
            if not any(map(operator.is_, legal, repeat(action))) and action not in legal:
                raise RulesError(f"seat {seat} may not play {action!r} now")


@dataclass(frozen=True)
class Game:
    """A registered game: its facts, a constructor, and the conformance hooks."""

    spec: GameSpec
    create: Callable[[int, int, Mapping[str, OptionValue]], GameState]
    """``create(players, seed, options)`` with options already validated and defaulted."""
    perturb_secrets: Callable[[GameState, Seat | None, int], GameState] | None = field(default=None)
    """For the leak test: a copy of a state in which only ``seat``'s secrets (or, for ``None``,
    only what no seat may know, such as the order of a deck) are changed, using the given seed.
    Every other seat's observation and legal actions must come out identical."""
    spectate: Callable[[GameState], Observation] | None = field(default=None)
    """What a spectator may see of a state: the game's observation with no seat's secrets in it
    (``seat`` -1, every private field empty), for live boards. It changes with no seat's secrets
    nor with what nobody may know (``perturb_secrets``); a game without it cannot be watched."""
    determinize: Callable[[Observation, tuple[Action, ...], int], GameState] | None = field(default=None)
    """For search bots: ``determinize(observation, legal_actions, seed)`` builds a state that one
    seat's observation and legal actions could have come from, drawing whatever that seat cannot
    see (opponents' secrets, the order of decks, future chance) with the given seed. It reads
    nothing but its arguments, so a bot may call it on what its request holds."""

    def new(self, players: int, seed: int, options: Mapping[str, OptionValue] | None = None) -> GameState:
        """A new game for ``players`` seats; raises ``OptionsError`` for bad players or options."""
        spec = self.spec
        if not spec.min_players <= players <= spec.max_players:
            raise OptionsError(
                f"{spec.name} is for {spec.min_players} to {spec.max_players} players, not {players}"
            )
        return self.create(players, seed, self.resolve_options(options or {}))

    def resolve_options(self, options: Mapping[str, OptionValue]) -> dict[str, OptionValue]:
        """Options with defaults filled in; raises ``OptionsError`` for unknown names or bad values."""
        known = {option.name: option for option in self.spec.options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            names = ", ".join(known) or "none"
            raise OptionsError(f"{self.spec.name} has no option {unknown[0]!r} (options: {names})")
        resolved: dict[str, OptionValue] = {}
        for name, option in known.items():
            value = options.get(name, option.default)
            if type(value) is not type(option.default):
                kind = type(option.default).__name__
                raise OptionsError(f"option {name!r} takes a {kind}, not {value!r}")
            if option.choices and value not in option.choices:
                allowed = ", ".join(map(str, option.choices))
                raise OptionsError(f"option {name!r} must be one of {allowed}, not {value!r}")
            resolved[name] = value
        return resolved
