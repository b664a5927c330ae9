"""The kernel's per-user process count and the user ids jailed bots run as.

RLIMIT_NPROC counts every process and thread of a *user*, so how many a bot may start depends on
whose user it runs as: a user of its own when the server is root (``BotUids``), else the server's.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from kingmaker.server.jail.sandbox import Limits, running_as_root


def processes_rlimit(limits: Limits, own_uid: bool) -> int:
    """The RLIMIT_NPROC value that gives the bot ``limits.processes`` processes of its own.

    The kernel counts every process and thread of the bot's *user*. With a user of its own
    (root server, see ``BotUids``) that is the bot alone. Otherwise the bot shares the server's
    user, so it gets the user's current count plus its allowance: a fork bomb stops after
    ``limits.processes`` more, though that budget is shared with anything else the user starts
    meanwhile. For root without a user of its own, the kernel enforces nothing (0: not set).
    """
    if not limits.processes:
        return 0
    if own_uid:
        return limits.processes
    if running_as_root():
        return 0
    return count_tasks_of_user(os.getuid()) + limits.processes


def count_tasks_of_user(uid: int) -> int:
    """Processes and threads whose real user is ``uid`` (what RLIMIT_NPROC counts)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue  # it exited meanwhile
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            total += int(fields.get("Threads", "1"))
    return total


class BotUids:
    """User ids for jailed bots when the server is root: one per running bot, so that the process
    limit counts that bot alone and no bot can read another's files. They come from a block far
    above ordinary and container user ids; a random start keeps two servers on one machine from
    handing out the same ids in practice (a clash would only make two bots share a budget)."""

    FIRST = 1_500_000_000
    COUNT = 1_000_000

    def __init__(self) -> None:
        self._random = random.Random()
        self._taken: set[int] = set()

    def take(self) -> int:
        while True:
            uid = self.FIRST + self._random.randrange(self.COUNT)
            if uid not in self._taken:
                self._taken.add(uid)
                return uid

    def give_back(self, uid: int) -> None:
        self._taken.discard(uid)


BOT_UIDS = BotUids()
