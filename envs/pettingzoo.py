"""The four games as PettingZoo environments: ``env`` (AEC) for every game, ``parallel_env``
where the rules have simultaneous decisions (King's Road, Kingsburg).

    from kingmaker.envs.pettingzoo import env
    game = env("kingdoms", players=3, no_luck=True, render_mode="ansi")

Agents are ``seat_0`` ... ``seat_{N-1}``. An observation is ``{"observation": float32 array,
"action_mask": int8 array}``: the seat's observation from the engine followed by its legal
actions, one per slot (``table.py``), and the mask of the slots that hold one. The action space is
``Discrete(slots)``, fixed per game (``shapes.py``): action ``i`` plays the ``i``-th legal action,
the index the referee accepts from a bot. An action outside the mask raises ``IllegalAction``.

The reward comes at the end: the seat's pairwise score in [-1, 1] (seats it beat less seats that
beat it, over the others), and ``infos`` then holds the game's ``scores`` and ``ranks``. Chance is
drawn by the engine from the seed ``reset(seed=...)`` gives; the same seed and actions replay the
same game, as in the referee.

In the AEC environment a simultaneous decision asks its seats one after another; their choices
are applied together once all have chosen, so none sees another's. A seat not deciding now sees
an all-zero mask.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from kingmaker.envs.requirements import require
from kingmaker.envs.table import Table
from kingmaker.games.api import OptionValue, Seat

require("pettingzoo")
require("gymnasium")

from gymnasium import spaces  # noqa: E402
from pettingzoo import AECEnv, ParallelEnv  # noqa: E402

RENDER_MODES = ["ansi"]


def env(game: str, players: int = 2, render_mode: str | None = None, **options: OptionValue) -> KingmakerEnv:
    """The AEC environment of ``game`` for ``players`` seats with the game's ``options``."""
    return KingmakerEnv(game, players, render_mode, options)


def parallel_env(
    game: str, players: int = 2, render_mode: str | None = None, **options: OptionValue
) -> KingmakerParallelEnv:
    """The parallel environment of a game with simultaneous decisions."""
    return KingmakerParallelEnv(game, players, render_mode, options)


def agent_name(seat: Seat) -> str:
    return f"seat_{seat}"


class _Spaces:
    """What both environments share: the table, the agents, the spaces, seeding, rendering."""

    def __init__(
        self, game: str, players: int, render_mode: str | None, options: Mapping[str, OptionValue]
    ) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, not {render_mode!r}")
        self.render_mode = render_mode
        self.table = Table(game, players, options)
        self.possible_agents = [agent_name(seat) for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.agents: list[str] = []
        encoder = self.table.encoder
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (encoder.width,), np.float32),
                "action_mask": spaces.Box(0, 1, (encoder.slots,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(encoder.slots)
        self._seeds = np.random.default_rng()
        self.metadata = {
            "render_modes": RENDER_MODES,
            "name": f"kingmaker_{game}_v0",
            "is_parallelizable": True,
        }

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_space

    def _new_game(self, seed: int | None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.table.reset(int(self._seeds.integers(2**31)))
        self.agents = list(self.possible_agents)

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self.table.board_text()
        return None

    def close(self) -> None:
        pass

    def _final_infos(self) -> dict[str, dict[str, Any]]:
        result = self.table.result()
        return {
            agent_name(seat): {"scores": result.scores, "ranks": result.ranks, "rank": result.ranks[seat]}
            for seat in range(self.table.players)
        }


class KingmakerEnv(_Spaces, AECEnv):  # type: ignore[misc]
    def __init__(
        self, game: str, players: int, render_mode: str | None, options: Mapping[str, OptionValue]
    ) -> None:
        AECEnv.__init__(self)
        _Spaces.__init__(self, game, players, render_mode, options)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._new_game(seed)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = agent_name(self.table.waiting()[0])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.table.observe(self._seats[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        table = self.table
        table.choose(self._seats[agent], int(action))
        if table.is_over():
            for other, reward in zip(self.possible_agents, table.rewards(), strict=True):
                self.rewards[other] = reward
                self.terminations[other] = True
            self.infos = self._final_infos()
            self.agent_selection = self.agents[0]
            self._accumulate_rewards()
        else:
            # Rewards come at the end only: until then every step's are the zeros reset left.
            self.agent_selection = self.possible_agents[table.waiting()[0]]


class KingmakerParallelEnv(_Spaces, ParallelEnv):  # type: ignore[misc]
    """Every acting seat chooses at once; actions given for seats not deciding are ignored."""

    def __init__(
        self, game: str, players: int, render_mode: str | None, options: Mapping[str, OptionValue]
    ) -> None:
        _Spaces.__init__(self, game, players, render_mode, options)
        if not self.table.game.spec.simultaneous:
            raise ValueError(f"{game} has no simultaneous decisions: use env(), the AEC environment")

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        self._new_game(seed)
        return self._observations(), {agent: {} for agent in self.agents}

    def _observations(self) -> dict[str, Any]:
        return {agent: self.table.observe(seat) for seat, agent in enumerate(self.possible_agents)}

    def step(self, actions: Mapping[str, Any]) -> tuple[dict[str, Any], ...]:
        waiting = self.table.waiting()
        missing = [agent_name(seat) for seat in waiting if agent_name(seat) not in actions]
        if missing:
            raise ValueError(f"no action for {', '.join(missing)}, who must act now")
        for seat in waiting:
            self.table.choose(seat, int(actions[agent_name(seat)]))
        observations = self._observations()
        over = self.table.is_over()
        rewards = dict(zip(self.possible_agents, self.table.rewards(), strict=True))
        terminations = dict.fromkeys(self.possible_agents, over)
        truncations = dict.fromkeys(self.possible_agents, False)
        infos = self._final_infos() if over else {agent: {} for agent in self.possible_agents}
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    @functools.cached_property
    def unwrapped(self) -> KingmakerParallelEnv:
        return self
