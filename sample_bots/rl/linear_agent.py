"""A policy-gradient agent in numpy alone, trained in the PettingZoo environment (docs/rl.md).

The policy scores each legal slot by a linear function of that action's features (the part of the
observation array that describes the slot's action: its type, one-hot, and its fields) and picks
by softmax while it learns, the best slot when it plays. REINFORCE with a running baseline: after
each game every choice's log-probability is pushed up by how much better than usual the final
reward was. A few hundred games against the random bot teach it which kinds of action pay.

    python -m kingmaker.sample_bots.rl.linear_agent kingsville --episodes 400 --out kingsville.npz
    KINGMAKER_POLICY_WEIGHTS=kingsville.npz kingmaker play-policy kingsville \\
        kingmaker.sample_bots.rl.linear_agent:policy
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kingmaker.envs.table import Encoder, encoder_for


@dataclass
class LinearPolicy:
    game: str
    weights: np.ndarray
    encoder: Encoder = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.encoder = encoder_for(self.game)

    @classmethod
    def untrained(cls, game: str) -> LinearPolicy:
        return cls(game, np.zeros(encoder_for(game).action_width, dtype=np.float64))

    @classmethod
    def load(cls, path: str | Path) -> LinearPolicy:
        saved = np.load(path)
        return cls(str(saved["game"]), saved["weights"])

    def save(self, path: str | Path) -> None:
        np.savez(path, game=self.game, weights=self.weights)

    def features(self, observation: np.ndarray, legal: int) -> np.ndarray:
        """One row per legal slot: the features of the action it holds."""
        encoder = self.encoder
        slots = observation[encoder.observation_width :].reshape(encoder.slots, encoder.action_width)
        features: np.ndarray = slots[:legal].astype(np.float64)
        return features

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        scores = self.features(observation, int(action_mask.sum())) @ self.weights
        scores -= scores.max()
        odds: np.ndarray = np.exp(scores)
        odds /= odds.sum()
        return odds

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Play: the slot the policy likes best."""
        return int(np.argmax(self.probabilities(observation, action_mask)))


def train(
    game: str, episodes: int, players: int = 2, seed: int = 0, learning_rate: float = 0.05
) -> LinearPolicy:
    """Train seat 0 against random seats in the PettingZoo environment."""
    from kingmaker.envs.pettingzoo import env

    policy = LinearPolicy.untrained(game)
    rng = np.random.default_rng(seed)
    table = env(game, players=players)
    baseline = 0.0
    for episode in range(episodes):
        table.reset(seed=seed + episode)
        gradient = np.zeros_like(policy.weights)
        reward = 0.0
        for agent in table.agent_iter():
            observation, last_reward, terminated, truncated, _ = table.last()
            if terminated or truncated:
                if agent == "seat_0":
                    reward = last_reward
                table.step(None)
                continue
            mask = observation["action_mask"]
            if agent != "seat_0":
                table.step(int(rng.choice(np.flatnonzero(mask))))
                continue
            features = policy.features(observation["observation"], int(mask.sum()))
            odds = policy.probabilities(observation["observation"], mask)
            slot = int(rng.choice(len(odds), p=odds))
            gradient += features[slot] - odds @ features  # d log pi(slot) / d weights
            table.step(slot)
        policy.weights += learning_rate * (reward - baseline) * gradient / max(1.0, np.abs(gradient).max())
        baseline += 0.05 * (reward - baseline)
    return policy


_loaded: LinearPolicy | None = None


def policy(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """The trained policy in ``$KINGMAKER_POLICY_WEIGHTS`` (a file ``train`` saved), for
    ``kingmaker play-policy``; without it, an untrained one (all slots alike: the first)."""
    global _loaded
    if _loaded is None:
        path = os.environ.get("KINGMAKER_POLICY_WEIGHTS")
        _loaded = LinearPolicy.load(path) if path else LinearPolicy.untrained(_game_of(observation))
    return _loaded(observation, action_mask)


def _game_of(observation: np.ndarray) -> str:
    from kingmaker.games.registry import game_names

    for name in game_names():
        if encoder_for(name).width == observation.shape[0]:
            return name
    raise ValueError(f"no game has observations of {observation.shape[0]} numbers")


def main() -> None:
    parser = argparse.ArgumentParser(description="Train the linear agent against random seats.")
    parser.add_argument("game")
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True, help="where to save the weights (.npz)")
    arguments = parser.parse_args()
    trained = train(arguments.game, arguments.episodes, arguments.players, arguments.seed)
    trained.save(arguments.out)
    print(f"saved {arguments.out}")


if __name__ == "__main__":
    main()
