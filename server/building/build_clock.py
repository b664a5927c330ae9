"""A build's clock: the CPU time its processes used, against its limit, and the wall time it has
run, read while it runs (its watchers see it: `kingmaker submit`, the console).

A build is limited by its CPU time, not by wall time: on a busy server a build may wait long for
a core, and that wait is the server's, not the author's (issue 47: a Go kit's first build got
0.1-0.4% of a CPU beside a ladder and was stopped at 600 s of wall time). The wall-clock limit,
much longer, only stops a build that waits on nothing (``sleep``, a read that never ends).

While builds run, their CPU weight is raised so that together they get at least ``BUILD_SHARE``
of the CPU against what else is runnable (``build_weight``): at their base weight (a tenth of a
bot's) a build beside a loaded ladder would make next to no progress at all.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

BUILD_SHARE = 0.2
"""The share of the CPU the running builds get together, at least, under contention."""
DEFAULT_WEIGHT = 100
"""What one runnable task (a bot, a process of the server or of anyone) weighs: cgroup v2's
default weight; the load average counts such tasks."""
MAX_WEIGHT = 10_000


@dataclass
class BuildClock:
    """Where a running build stands against its limits (updated by the build as it runs)."""

    cpu_limit: float
    wall_limit: float
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0


def build_weight(base: int, builds: int, load: float | None = None) -> int:
    """The CPU weight for each of ``builds`` running builds: at least ``base``, and enough that
    together they weigh ``BUILD_SHARE`` against the machine's runnable tasks (its one-minute load
    average, which counts the builds' own too: a slight overestimate, on the builds' side)."""
    if load is None:
        load = os.getloadavg()[0]
    others = max(0.0, load) * DEFAULT_WEIGHT
    wanted = others * BUILD_SHARE / (1 - BUILD_SHARE) / max(1, builds)
    return max(base, min(MAX_WEIGHT, math.ceil(wanted)))
