"""Policies trained in ``kingmaker.envs``: a small numpy-only learner (docs/rl.md)."""
