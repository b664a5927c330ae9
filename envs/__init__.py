"""kingmaker.envs: the four games as reinforcement-learning environments.

The same engines the referee plays (``kingmaker.games``), seen through PettingZoo
(``kingmaker.envs.pettingzoo``) and OpenSpiel (``kingmaker.envs.openspiel``), and any policy
trained there put back on the ladder as a bot (``kingmaker.envs.policy_bot``). A seat sees
exactly what the referee would send it: its observation and its legal actions. See docs/rl.md.

The libraries come with the optional extra: ``pip install 'kingmaker[envs]'``. Without them the
rest of kingmaker runs as before; only these modules refuse to import, saying so.
"""
