"""The four games registered with OpenSpiel: ``kingmaker_kingdoms``, ``kingmaker_kingsburg``,
``kingmaker_kings_road``, ``kingmaker_kingsville``.

    import pyspiel
    import kingmaker.envs.openspiel  # registers the games
    game = pyspiel.load_game("kingmaker_kingdoms", {"players": 3, "no_luck": True})

Parameters: ``players`` (the game's smallest table by default) and each of the game's options.
Games with simultaneous decisions (King's Road, Kingsburg) are ``SIMULTANEOUS`` games: a node
where several seats decide at once is a simultaneous node, where a seat that is not deciding has
one action, 0, which does nothing; a node where one seat decides is that seat's. Kingdoms and
Kingsville are ``SEQUENTIAL``. All four are ``IMPERFECT_INFORMATION`` and ``ZERO_SUM``: the return
is the pairwise score of ``table.py`` in [-1, 1].

Chance: the engine draws every die and card itself, from its seed, as in the referee. The seed is
the game's only chance event, drawn at the start as four chance nodes of one byte each (256
equally likely outcomes); after them the game is deterministic given the seats' actions. So the
chance is explicit but all of it comes first, and no seat observes it.

Actions are slots, as in ``pettingzoo.py``: action ``i`` plays the ``i``-th legal action. The
observation tensor is the PettingZoo observation array (the seat's observation and its legal
actions), the observation string its JSON. The information-state string is perfect-recall: the
seat's number and a digest chained over every observation it has had and every action it took,
so two histories give the same string exactly when the seat cannot tell them apart. There is no
information-state tensor (a full history has no fixed size).

``resample_from_infostate`` builds a state the seat's observation and legal actions could have
come from with the game's own ``determinize``, so OpenSpiel's ISMCTS runs on these games.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from kingmaker.envs.requirements import require
from kingmaker.envs.shapes import SHAPES
from kingmaker.envs.table import Encoder, encoder_for, pairwise_rewards
from kingmaker.games import serial
from kingmaker.games.api import Action, Game, GameState, Seat
from kingmaker.games.registry import game_names, get_game

require("pyspiel")

import pyspiel  # noqa: E402

SEED_BYTES = 4
"""Chance nodes at the start; together they are the engine's seed."""
CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)
SLOT_LISTS = [list(range(count)) for count in range(max(shape.slots for shape in SHAPES.values()) + 1)]
"""For each number of legal actions, the list of their slots, copied for ``legal_actions``."""


def short_name(game_name: str) -> str:
    return f"kingmaker_{game_name}"


def load_game(game_name: str, parameters: dict[str, Any] | None = None) -> Any:
    """``pyspiel.load_game`` of one of these games, by kingmaker's name for it."""
    return pyspiel.load_game(short_name(game_name), parameters or {})


def game_type(game: Game) -> Any:
    spec = game.spec
    parameters: dict[str, Any] = {"players": spec.min_players}
    parameters.update({option.name: option.default for option in spec.options})
    dynamics = pyspiel.GameType.Dynamics
    return pyspiel.GameType(
        short_name=short_name(spec.name),
        long_name=f"kingmaker {spec.title}",
        dynamics=dynamics.SIMULTANEOUS if spec.simultaneous else dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.max_players,
        min_num_players=spec.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


class KingmakerGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no types
    """One of the games, for a number of players and options given as parameters."""

    engine: Game

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = self.engine.spec
        params = dict(params or {})
        players = int(params.get("players", spec.min_players))
        options = self.engine.resolve_options({k: v for k, v in params.items() if k != "players"})
        if not spec.min_players <= players <= spec.max_players:
            raise ValueError(
                f"{spec.name} is for {spec.min_players} to {spec.max_players} players, not {players}"
            )
        self.encoder: Encoder = encoder_for(spec.name)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoder.slots,
            max_chance_outcomes=256,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=spec.max_decisions + SEED_BYTES,
        )
        super().__init__(GAME_TYPES[spec.name], info, {"players": players, **options})

    def new_initial_state(self) -> KingmakerState:
        return KingmakerState(self)

    # OpenSpiel copies games and states by pickling, which keeps only what pyspiel knows (type,
    # parameters): the rest is read from those.
    @property
    def players(self) -> int:
        return int(self.num_players())

    @property
    def options(self) -> dict[str, Any]:
        parameters = self.get_parameters()
        return {option.name: parameters[option.name] for option in self.engine.spec.options}

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> KingmakerObserver:
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return KingmakerObserver(self.encoder, perfect_recall)


class KingmakerState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no types
    def __init__(self, game: KingmakerGame) -> None:
        super().__init__(game)
        self._game = game
        self._seed_bytes: list[int] = []
        self._engines = _Engines()
        self._recall: list[str] = [str(seat) for seat in range(game.players)]
        """Per seat, the digest chained over what it has seen and done, up to ``_recalled``."""
        self._unrecalled: list[tuple[dict[Seat, Action] | None, dict[Seat, int]]] = []
        """The steps since ``_engines.recalled``, where ``_recall`` stops, each a joint action and
        its slots (a None joint: the start, nothing applied): digests are taken only when an
        information state is asked for, so rollouts never pay for them."""
        self._recall_seed: int | None = None
        """The seed of an engine made from the seed bytes, from which ``_recalled`` is made again
        when an information state is first asked for, rather than cloned at every game's start."""

    @property
    def engine(self) -> GameState | None:
        return self._engines.engine

    @engine.setter
    def engine(self, engine: GameState | None) -> None:
        self._engines.start(engine)

    @property
    def _recalled(self) -> GameState | None:
        return self._engines.recalled

    @_recalled.setter
    def _recalled(self, engine: GameState | None) -> None:
        self._engines.recalled = engine

    def current_player(self) -> int:
        return self._engines.current

    # The next four are pyspiel's own, answered here when called from Python: through pyspiel
    # each is a round trip into C++ and back into ``current_player`` or ``_legal_actions`` (a
    # few µs each, a step's engine work is tens). Callers in C++ still take pyspiel's.
    def is_chance_node(self) -> bool:
        return self._engines.current == CHANCE

    def is_simultaneous_node(self) -> bool:
        return self._engines.current == SIMULTANEOUS

    def is_player_node(self) -> bool:
        return self._engines.current >= 0

    def legal_actions(self, player: int | None = None) -> list[int]:
        current = self._engines.current
        if current == CHANCE:
            return list(range(256))  # the seed's bytes
        if player is None:
            player = current
            if player == SIMULTANEOUS:
                return list(super().legal_actions())  # the flat joint actions, as pyspiel gives
        if current == TERMINAL or player < 0:
            return []
        return self._legal_actions(player)

    def legal(self, seat: Seat) -> tuple[Action, ...]:
        """``seat``'s legal actions in the engine now: asked of the engine once per node, as an
        observation, the legal slots and the move each ask for them."""
        return self._engines.legal(seat)

    def _legal_actions(self, player: int) -> list[int]:
        engines = self._engines
        count = len(engines.legal(player))
        if count == 0 and len(engines.acting) > 1:
            return [0]  # not deciding at a simultaneous node: the one action that does nothing
        return SLOT_LISTS[count][:]  # a copy of a list kept: a third of building it anew

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(outcome, 1 / 256) for outcome in range(256)]

    def _apply_action(self, action: int) -> None:
        engines = self._engines
        if engines.engine is None:
            self._seed_bytes.append(action)
            if len(self._seed_bytes) == SEED_BYTES:
                seed = int.from_bytes(bytes(self._seed_bytes), "big")
                self.engine = self._game.engine.new(self._game.players, seed, self._game.options)
                self._start_recall(seed)
            return
        seat = engines.current
        self._apply_joint({seat: engines.legal(seat)[action]}, {seat: action})

    def _apply_actions(self, actions: list[int]) -> None:
        engines = self._engines
        acting = engines.acting
        joint = {seat: engines.legal(seat)[actions[seat]] for seat in acting}
        self._apply_joint(joint, {seat: actions[seat] for seat in acting})

    def _apply_joint(self, joint: dict[Seat, Action], slots: dict[Seat, int]) -> None:
        self._engines.apply(joint)
        self._unrecalled.append((joint, slots))

    def _start_recall(self, seed: int | None = None) -> None:
        assert self.engine is not None
        # An engine new from a seed is made again from it when first recalled: a clone at every
        # game's start cost 6-32 µs (King's Road to Kingsburg), 0.3-1 µs a step of a game played
        # without information states.
        self._recalled = self.engine.clone() if seed is None else None
        self._recall_seed = seed
        # What the seats see at the start is folded when an information state is first asked for,
        # as every step is: its repr and digests at each game's start cost a game played without
        # information states 4% of Kingdoms' engine work (5.7k instructions a step of 140k).
        self._unrecalled = [(None, {})]

    def _fold(self, slots: dict[Seat, int]) -> None:
        assert self._recalled is not None
        for seat in range(self._game.players):
            # repr of a frozen dataclass of ints, strs, enums and tuples: stable and complete.
            seen = repr(self._recalled.observation(seat))
            step = f"{self._recall[seat]}|{slots.get(seat, '')}|{seen}"
            self._recall[seat] = hashlib.sha256(step.encode()).hexdigest()

    def recall(self, seat: Seat) -> str:
        """``seat``'s information state: the chain over all it has seen and done until now."""
        if self._recalled is None and self._recall_seed is not None:
            game = self._game
            self._recalled = game.engine.new(game.players, self._recall_seed, game.options)
            self._recall_seed = None
        if self._recalled is not None:
            for joint, slots in self._unrecalled:
                if joint is not None:
                    self._recalled.apply(joint)
                self._fold(slots)
            self._unrecalled = []
        return self._recall[seat]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {action}"
        legal = self.legal(player) if self.engine is not None else ()
        return repr(legal[action]) if 0 <= action < len(legal) else f"slot {action}"

    def is_terminal(self) -> bool:
        return self._engines.current == TERMINAL

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._game.players
        assert self.engine is not None
        return pairwise_rewards(self.engine.result().ranks)

    def resample_from_infostate(self, player: int, sampler: Any) -> KingmakerState:
        """A state ``player`` cannot tell from this one, drawn by the game's ``determinize``."""
        assert self.engine is not None
        determinize = self._game.engine.determinize
        if determinize is None:
            raise pyspiel.SpielError(f"{self._game.engine.spec.name} has no determinizer")
        seed = int(sampler() * 2**31)  # a uniform number in [0, 1) from the caller's sampler
        twin = KingmakerState(self._game)
        twin._seed_bytes = list(self._seed_bytes)
        twin.engine = determinize(self.engine.observation(player), self.legal(player), seed)
        twin._recall = [self.recall(seat) for seat in range(self._game.players)]
        twin._recalled = twin.engine.clone()
        return twin

    def __str__(self) -> str:
        if self.engine is None:
            return f"drawing the seed: {self._seed_bytes}"
        from kingmaker.envs.text import value_text

        spectate = self._game.engine.spectate
        return value_text(spectate(self.engine) if spectate else self.engine.observation(0))


class _Engines:
    """The engine states of a ``KingmakerState``. OpenSpiel clones a state by deep copy: this
    copies them with the engines' own ``clone()``, many times faster than a generic deep copy.

    Who acts is found as the engine changes, and each seat's legal actions when first asked for,
    kept until the engine changes, which it does only through ``apply`` here or ``start`` (the
    state's methods; nothing else applies to it): OpenSpiel and its callers ask for the current
    player several times a node, each a call from C++ or Python, and a plain attribute read is
    the cheapest answer. A copy keeps them: the same position has the same answers."""

    engine: GameState | None
    recalled: GameState | None
    current: int
    """The current player as OpenSpiel numbers it: a seat, chance, terminal or simultaneous."""
    acting: tuple[Seat, ...]
    """The seats deciding now (none at chance or at the end)."""

    def __init__(self, engine: GameState | None = None, recalled: GameState | None = None) -> None:
        self.recalled = recalled
        self.start(engine)

    def start(self, engine: GameState | None) -> None:
        self.engine = engine
        self._legal: dict[Seat, tuple[Action, ...]] = {}
        if engine is None:
            self.acting, self.current = (), CHANCE
        else:
            self._found(engine)

    def _found(self, engine: GameState) -> None:
        if engine.is_over():
            self.acting, self.current = (), TERMINAL
        else:
            acting = self.acting = engine.to_act()
            self.current = acting[0] if len(acting) == 1 else SIMULTANEOUS

    def legal(self, seat: Seat) -> tuple[Action, ...]:
        legal = self._legal.get(seat)
        if legal is None:
            assert self.engine is not None
            legal = self._legal[seat] = self.engine.legal_actions(seat)
        return legal

    def apply(self, joint: dict[Seat, Action]) -> None:
        engine = self.engine
        assert engine is not None
        engine.apply(joint)
        self._legal = {}
        self._found(engine)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engines:
        copy = _Engines.__new__(_Engines)
        engine, recalled = self.engine, self.recalled
        copy.engine = engine.clone() if engine is not None else None
        copy.recalled = recalled.clone() if recalled is not None else None
        copy.acting, copy.current, copy._legal = self.acting, self.current, dict(self._legal)
        return copy


def state_from_request(game: KingmakerGame, request: Any, seed: int) -> KingmakerState:
    """A state one seat's request could have come from (``request.observation`` and
    ``request.legal_actions``, drawn by the game's ``determinize``), for a ``pyspiel.Bot`` to
    search from. Each seat's information state starts at what it sees now."""
    determinize = game.engine.determinize
    if determinize is None:
        raise ValueError(f"{game.engine.spec.name} has no determinizer")
    state = KingmakerState(game)
    state._seed_bytes = [0] * SEED_BYTES
    state.engine = determinize(request.observation, request.legal_actions, seed)
    state._start_recall()
    return state


class KingmakerObserver:
    """What a seat sees: its observation and legal actions (tensor, JSON string), or with perfect
    recall its information-state string."""

    def __init__(self, encoder: Encoder, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.encoder = encoder
        self.tensor = np.zeros(0 if perfect_recall else encoder.width, np.float32)
        self.dict = {"observation": self.tensor}
        self._bytes = self.tensor.data.cast("B")
        """The tensor's memory, where a request's leading numbers are copied."""
        start, step = encoder.observation_width, encoder.action_width
        self._empty_slots = [self.tensor[start + step * count :] for count in range(encoder.slots + 1)]
        """Per number of legal actions, the tensor's empty slots, zeroed in place: only the
        leading numbers are joined and copied (the whole array was, then copied again)."""

    def set_from(self, state: KingmakerState, player: int) -> None:
        if self.perfect_recall:
            return
        engines = state._engines  # its engine and legal actions: no property or method to call
        engine = engines.engine
        if engine is None:
            self.tensor.fill(0)
            return
        legal = engines.legal(player)
        numbers = self.encoder.head(engine.observation(player), legal)
        self._bytes[: len(numbers)] = numbers
        self._empty_slots[len(legal)].fill(0)

    def string_from(self, state: KingmakerState, player: int) -> str:
        if self.perfect_recall:
            return f"seat {player} {state.recall(player)}"
        if state.engine is None:
            return f"seat {player}"
        view = {
            "observation": serial.to_data(state.engine.observation(player)),
            "legal_actions": [serial.action_to_data(a) for a in state.legal(player)],
        }
        return json.dumps(view, separators=(",", ":"))


def _game_class(game_name: str) -> type[KingmakerGame]:
    # A module-level name of its own, so that OpenSpiel can pickle states (its clone does).
    name = "".join(word.title() for word in game_name.split("_")) + "Game"
    kind = type(name, (KingmakerGame,), {"engine": get_game(game_name), "__module__": __name__})
    globals()[name] = kind
    return kind


GAME_TYPES = {name: game_type(get_game(name)) for name in game_names()}
GAME_CLASSES = {name: _game_class(name) for name in game_names()}

for _name in game_names():
    if short_name(_name) not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPES[_name], GAME_CLASSES[_name])
