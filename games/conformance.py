"""The conformance suite every registered game must pass (driven by tests/games/test_conformance.py).

Each check is a plain function on a ``Game`` so a new game's author can run it while writing
the game: random legal play always applies and ends, seed plus actions replays to the same
end, a clone is independent, no seat's observation or legal actions change when only
another seat's secrets (or what nobody may know) change, and the spectator view holds no secret.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import FunctionType, ModuleType

from kingmaker.games import serial
from kingmaker.games.api import Action, Game, GameState, OptionValue, Result, Seat

JointAction = dict[Seat, Action]


@dataclass(frozen=True)
class Playout:
    """A finished random game: how it was made and what happened."""

    players: int
    seed: int
    options: Mapping[str, OptionValue]
    log: tuple[JointAction, ...]
    final: GameState


def random_playout(
    game: Game,
    players: int,
    seed: int,
    options: Mapping[str, OptionValue] | None = None,
    policy_seed: int = 0,
) -> Playout:
    """Play uniformly random legal actions to the end, checking the interface on the way."""
    state = game.new(players, seed, options)
    chooser = random.Random(policy_seed)
    log: list[JointAction] = []
    while not state.is_over():
        assert len(log) < game.spec.max_decisions, f"{game.spec.name} exceeded max_decisions"
        acting = state.to_act()
        assert acting, "a game that is not over must have someone to act"
        assert list(acting) == sorted(set(acting)), "to_act() must be ascending and unique"
        joint: JointAction = {}
        for seat in acting:
            legal = state.legal_actions(seat)
            assert legal, f"seat {seat} must act but has no legal action"
            joint[seat] = chooser.choice(legal)
        for seat in range(players):
            if seat not in acting:
                assert state.legal_actions(seat) == (), f"seat {seat} is not acting yet has actions"
        state.apply(joint)
        log.append(joint)
    assert state.to_act() == ()
    _check_result(state.result(), players)
    return Playout(players, seed, dict(options or {}), tuple(log), state)


def replay(game: Game, playout: Playout) -> GameState:
    """Re-run a playout's log from its seed (through the JSON log form, as a stored match would)."""
    state = game.new(playout.players, playout.seed, playout.options)
    for joint in playout.log:
        stored = {str(seat): serial.action_to_data(action) for seat, action in joint.items()}
        decoded = {int(seat): serial.action_from_data(game.spec, data) for seat, data in stored.items()}
        assert decoded == joint, "an action did not survive the JSON log round trip"
        state.apply(decoded)
    return state


def check_replay(game: Game, playout: Playout) -> None:
    """Seed plus actions reaches the same end, and every seat sees the same final view."""
    again = replay(game, playout)
    assert again.is_over()
    assert again.result() == playout.final.result()
    for seat in range(playout.players):
        assert again.observation(seat) == playout.final.observation(seat)


def check_clone(game: Game, players: int, seed: int, policy_seed: int) -> None:
    """A clone follows its own path: playing it does not touch the original. It holds no
    mutable object of the original's, and plays on exactly as a deep copy does (games may
    write a faster ``clone`` than the default deepcopy; this keeps it honest)."""
    state = game.new(players, seed)
    chooser = random.Random(policy_seed)
    for _ in range(chooser.randrange(1, 40)):
        if state.is_over():
            return
        state.apply({s: chooser.choice(state.legal_actions(s)) for s in state.to_act()})
    before = [serial.digest(state.observation(s)) for s in range(players)]
    twin, deep = state.clone(), copy.deepcopy(state)
    shared = _mutable_parts(state).keys() & _mutable_parts(twin).keys()
    paths = _mutable_parts(state)
    assert not shared, f"clone() shares mutable state: {sorted(paths[i] for i in shared)}"
    while not twin.is_over():
        joint = {s: chooser.choice(twin.legal_actions(s)) for s in twin.to_act()}
        twin.apply(joint)
        deep.apply(joint)
        assert twin.to_act() == deep.to_act(), "a clone and a deep copy went different ways"
    assert deep.is_over() and twin.result() == deep.result()
    assert [twin.observation(s) for s in range(players)] == [deep.observation(s) for s in range(players)]
    assert [serial.digest(state.observation(s)) for s in range(players)] == before


def _mutable_parts(value: object, path: str = "state", found: dict[int, str] | None = None) -> dict[int, str]:
    """id -> path of every mutable object reachable from ``value`` (lists, dicts, sets and
    objects with attributes, except frozen dataclasses and enum members)."""
    found = {} if found is None else found
    if id(value) in found or isinstance(value, type | ModuleType | FunctionType | enum.Enum):
        return found
    frozen = dataclasses.is_dataclass(value) and value.__dataclass_params__.frozen  # type: ignore[union-attr]
    if isinstance(value, list | dict | set | bytearray) or (hasattr(value, "__dict__") and not frozen):
        found[id(value)] = path
    if isinstance(value, dict):
        for key, item in value.items():
            _mutable_parts(item, f"{path}[{key!r}]", found)
    elif isinstance(value, list | tuple | set | frozenset):
        for index, item in enumerate(value):
            _mutable_parts(item, f"{path}[{index}]", found)
    elif hasattr(value, "__dict__"):
        for name, item in vars(value).items():
            _mutable_parts(item, f"{path}.{name}", found)
    return found


def check_no_leaks(game: Game, playout: Playout, samples: int = 12, seed: int = 0) -> int:
    """At sampled points of the playout, change one seat's secrets (or the hidden common
    secrets) and check that every other seat's observation and legal actions are unchanged.
    Returns how many perturbations visibly changed the owner's own view, so callers can assert
    the check did something (a perturbation that changes nothing proves nothing)."""
    perturb = game.perturb_secrets
    if perturb is None:
        assert not game.spec.hidden_information, (
            f"{game.spec.name} hides information: give it perturb_secrets"
        )
        return 0
    chooser = random.Random(seed)
    points = sorted(chooser.sample(range(len(playout.log) + 1), min(samples, len(playout.log) + 1)))
    state = game.new(playout.players, playout.seed, playout.options)
    changed = 0
    for step, joint in enumerate([*playout.log, None]):
        if step in points and not state.is_over():
            owner: Seat | None = chooser.choice([None, *range(playout.players)])
            other = perturb(state, owner, chooser.randrange(2**31))
            for seat in range(playout.players):
                if seat == owner:
                    if other.observation(seat) != state.observation(seat):
                        changed += 1
                    continue
                assert other.observation(seat) == state.observation(seat), (
                    f"seat {seat}'s observation changed with seat {owner}'s secrets"
                )
                assert other.legal_actions(seat) == state.legal_actions(seat)
                assert other.to_act() == state.to_act()
        if joint is not None:
            state.apply(joint)
    return changed


def check_spectator_view(game: Game, playout: Playout, seed: int = 0) -> int:
    """At every point of the playout, the spectator view (``Game.spectate``) holds nothing a seat
    keeps to itself: a field on which the seats' observations differ is empty in it, a field they
    share it shows as they do (or empty), and it does not change when any seat's secrets, or what
    nobody may know, change (``perturb_secrets``). Returns how many perturbations it was put to."""
    spectate = game.spectate
    assert spectate is not None, f"{game.spec.name} has no spectator view"
    chooser = random.Random(seed)
    state = game.new(playout.players, playout.seed, playout.options)
    perturbed = 0
    for joint in [*playout.log, None]:
        view = spectate(state)
        same_type = type(view) is game.spec.observation_type  # (not in the assert: mypy would narrow view)
        assert same_type and view.seat == -1, "a spectator view is the game's observation for seat -1"
        views = [state.observation(seat) for seat in range(playout.players)]
        for name in (f.name for f in dataclasses.fields(view)):
            # (compared with ==, as the perturbed view below is: a digest of every field of every
            # seat's observation at every step was nine tenths of this check's time)
            mine, theirs = getattr(view, name), [getattr(seen, name) for seen in views]
            if any(value != theirs[0] for value in theirs[1:]) or mine != theirs[0]:
                assert mine in _EMPTY, f"the spectator sees {name}={mine!r}, which is a seat's own"
        if game.perturb_secrets is not None and not state.is_over():
            owner: Seat | None = chooser.choice([None, *range(playout.players)])
            other = game.perturb_secrets(state, owner, chooser.randrange(2**31))
            assert spectate(other) == view, f"the spectator view changed with seat {owner}'s secrets"
            perturbed += 1
        if joint is not None:
            state.apply(joint)
    return perturbed


_EMPTY = (None, (), 0, -1, False)
"""What a private field of a spectator view holds instead (none, nothing, no seat)."""


def _check_result(result: Result, players: int) -> None:
    assert len(result.scores) == players and len(result.ranks) == players
    assert min(result.ranks) == 1
    for rank in result.ranks:
        better = sum(1 for other in range(players) if result.ranks[other] < rank)
        assert rank == better + 1, f"ranks {result.ranks} are not competition ranks"
