"""Any policy as a bot: ``PolicyBot`` plays ``policy(observation, action_mask) -> slot`` and
``SpielBot`` any OpenSpiel ``pyspiel.Bot``, against a server like any other bot.

A request holds the seat's observation and legal actions, the values the environments encode,
so the policy gets the very arrays it was trained on (``table.py``):

    from kingmaker.envs.policy_bot import PolicyBot
    from kingmaker.sdk import run
    run(PolicyBot("kingdoms", my_policy))

``kingmaker play-policy GAME module:function`` does the same from the command line. Only numpy is
needed here (not PettingZoo), so a bot folder submitted to the ladder can do it too.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kingmaker.envs.table import encoder_for
from kingmaker.sdk.bot import Bot, MatchEnd, MatchStart, Request

if TYPE_CHECKING:
    from kingmaker.sdk.search import Budget

Policy = Callable[[np.ndarray, np.ndarray], Any]
"""``policy(observation, action_mask)`` -> the index of a slot the mask allows."""


class PolicyBot(Bot):
    def __init__(self, game: str, policy: Policy, name: str | None = None) -> None:
        self.game = game
        self.policy = policy
        self.encoder = encoder_for(game)
        self.name = name or str(getattr(policy, "__name__", "policy"))

    def act(self, request: Request) -> int:
        if request.game != self.game:
            raise ValueError(f"this policy plays {self.game}, not {request.game}")
        legal = request.legal_actions
        observation = self.encoder.array(request.observation, legal)
        slot = int(self.policy(observation, self.encoder.mask(len(legal))))
        if not 0 <= slot < len(legal):
            raise ValueError(f"the policy chose slot {slot}, but only slots 0-{len(legal) - 1} are legal")
        return slot


SpielBotFactory = Callable[[Any, int], Any]
"""``factory(game, player)`` -> a ``pyspiel.Bot`` for that OpenSpiel game and player."""


class SpielBot(Bot):
    """A ``pyspiel.Bot`` made for each match by ``factory`` and asked at each request, on a state
    built from the request alone (the game's ``determinize``): it sees what the seat sees.

    With ``turn_based``, a simultaneous game's state is given one seat at a time
    (``turn_based.py``), the requesting seat first, for a bot that takes sequential games only.

    A bot with ``set_time_limit(seconds)`` (the guided ISMCTS has it) is told before each request
    how long to think: ``budget``'s share of the request's clock (the search bot's ``Budget``: 60%
    of the decision's deadline and a twentieth of the bank), or None where the request has no
    deadline (a local match), so that it searches as many simulations as it was made to."""

    def __init__(
        self,
        game: str,
        factory: SpielBotFactory,
        name: str | None = None,
        seed: int = 0,
        turn_based: bool = False,
        budget: Budget | None = None,
    ) -> None:
        from kingmaker.envs import openspiel
        from kingmaker.sdk.search import Budget  # here: a plain policy's bot needs none of it

        self.game = game
        self.factory = factory
        self.name = name or str(getattr(factory, "__name__", "openspiel"))
        self.turn_based = turn_based
        self.budget = budget or Budget()
        self._openspiel = openspiel
        self._random = np.random.default_rng(seed)
        self._bots: dict[str, tuple[Any, Any, Any]] = {}

    def on_match_start(self, start: MatchStart) -> None:
        import pyspiel

        parameters = {"players": start.players, **start.options}
        game = self._openspiel.load_game(self.game, parameters)
        simultaneous = game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
        converted = pyspiel.convert_to_turn_based(game) if self.turn_based and simultaneous else None
        self._bots[start.match_id] = (game, converted, self.factory(game, start.seat))

    def on_match_end(self, end: MatchEnd) -> None:
        self._bots.pop(end.match_id, None)

    def act(self, request: Request) -> int:
        game, converted, bot = self._bots[request.match_id]
        state: Any = self._openspiel.state_from_request(game, request, int(self._random.integers(2**31)))
        if converted is not None:
            from kingmaker.envs.turn_based import TurnBasedState

            state = TurnBasedState(state, request.seat, converted)
        limit = getattr(bot, "set_time_limit", None)
        if limit is not None:
            limit(self.budget.seconds_for(request))
        slot = int(bot.step(state))
        if not 0 <= slot < len(request.legal_actions):
            raise ValueError(
                f"the OpenSpiel bot chose {slot}, not one of the {len(request.legal_actions)} slots"
            )
        return slot


def load_object(reference: str) -> Any:
    """``module:name`` or ``path/to/file.py:name`` -> that object; ValueError saying what is wrong."""
    module_name, _, attribute = reference.rpartition(":")
    if not module_name or not attribute:
        raise ValueError(f"expected module:function or path/to/file.py:function, not {reference!r}")
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise ValueError(f"no such file: {path}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
    else:
        if "" not in sys.path:
            sys.path.insert(0, "")  # the current folder, as `python -m` would
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise ValueError(f"cannot import {module_name}: {error}") from error
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ValueError(f"{module_name} has no {attribute!r}") from None
