"""What runs in a launched bot's (or build step's) process between fork and exec: its cgroups,
its nice value and scheduling policy, its limits and its user; and the nice value that stands
for a CPU weight where no cgroup carries one."""

from __future__ import annotations

import contextlib
import math
import os

from kingmaker.server.jail.cgroups import BotCgroup
from kingmaker.server.jail.sandbox import Limits


class InChild:
    """What runs in the bot's process between fork and exec: join its cgroups (as root), take its
    nice value and batch scheduling, set its limits, and, outside the jail, become its own user
    (inside, the jail's first step does)."""

    def __init__(self, limits: Limits, cgroup: BotCgroup | None, uid: int | None, niceness: int = 0) -> None:
        self.limits, self.cgroup, self.uid, self.niceness = limits, cgroup, uid, niceness

    def run(self) -> None:
        if self.cgroup is not None:
            self.cgroup.join()
        if self.niceness:
            os.nice(self.niceness)
        _batch_scheduled()
        self.limits.apply()
        if self.uid is not None:
            os.setgroups([])
            os.setgid(self.uid)
            os.setuid(self.uid)


def _batch_scheduled() -> None:
    """Schedule this process and all it starts as batch work (Linux's ``SCHED_BATCH``): the same
    share of the CPU by its nice value and weight, but, woken, it does not preempt the server at
    once. A referee's request wakes its bot, which took the core from the worker in the middle of
    its work: batch bots cost their worker and themselves less CPU a decision (``docs/scaling.md``).
    A bot's clock counts its own CPU time, and the time it waited for a CPU extends its wall-time
    ceiling, as before. Where the policy is missing, nothing changes."""
    batch = getattr(os, "SCHED_BATCH", None)
    if batch is not None:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, batch, os.sched_param(0))


def nice_for_weight(weight: int) -> int:
    """The ``nice`` value that weighs about ``weight`` against 100 (each step of nice is ~1.25x
    of CPU share), where no cgroup carries the weight; 0 for the default or a higher weight."""
    if not weight or weight >= 100:
        return 0
    return min(19, round(math.log(100 / weight) / math.log(1.25)))
