"""The numpy-only example agent of docs/rl.md trains in the environment, saves and loads its
policy, and plays legal matches as a bot (the referee's own protocol, through the local runner)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from kingmaker.envs.policy_bot import PolicyBot
from kingmaker.sample_bots.random_bot import RandomBot
from kingmaker.sample_bots.rl.linear_agent import LinearPolicy, train
from kingmaker.sdk import play_local


def test_the_agent_trains_briefly_and_plays_legal_matches(tmp_path: Path) -> None:
    policy = train("kingsville", episodes=12, seed=3)
    assert np.abs(policy.weights).sum() > 0, "training moved the weights"
    policy.save(tmp_path / "kingsville.npz")
    loaded = LinearPolicy.load(tmp_path / "kingsville.npz")
    assert loaded.game == "kingsville" and np.array_equal(loaded.weights, policy.weights)
    for seed in range(3):
        # play_local raises on an illegal reply; PolicyBot raises on a slot outside the mask.
        match = play_local("kingsville", [PolicyBot("kingsville", loaded), RandomBot(seed)], seed=seed)
        assert len(match.log) > 0 and sorted(match.result.ranks)[0] == 1
