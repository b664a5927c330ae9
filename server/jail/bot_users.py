"""The kernel's per-user process count, the user ids bots run as, and whether such a user could
run a bot outside the jail.

RLIMIT_NPROC counts every process and thread of a *user*, so how many a bot may start depends on
whose user it runs as: a user of its own when the server is root (``BotUids``), else the server's.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path

from kingmaker.server.jail.bot_folders import bot_folders
from kingmaker.server.jail.sandbox import Limits, code_paths, running_as_root


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


def closed_to_others(command: Sequence[str], cwd: str | None) -> tuple[Path, str] | None:
    """Where a user of the bot's own could not run this outside the jail: the first folder closed
    to other users on the way to its program (as named and as resolved: a virtualenv's python is
    a link), the interpreter its script's ``#!`` line names, its script, its working directory or
    the kingmaker code, with the path it leads to; None where all are open. A Python or a
    checkout under /root (mode 0700) is closed (the jail has no such problem: it shows the bot
    only what it binds in)."""
    program = command[0] if "/" in command[0] else shutil.which(command[0]) or command[0]
    named = [os.path.join(cwd or "/", program)]
    named += _interpreter(named[0])  # (a script runs its "#!" line's program: that too must open)
    named += bot_folders(command)  # its folder and virtualenv, as the jail would show them
    named += [folder for folder in (cwd, *code_paths()) if folder is not None]
    for path in {*named, *map(os.path.realpath, named)}:
        for folder in [*reversed(Path(path).parents)]:
            with contextlib.suppress(OSError):
                if not os.stat(folder).st_mode & stat.S_IXOTH:
                    return folder, path
    return None


def _interpreter(script: str) -> list[str]:
    """The program a script's ``#!`` line names (``env``'s program found on the PATH), or none."""
    try:
        with open(script, "rb") as file:
            first = file.readline(256)
    except OSError:
        return []
    words = first[2:].decode(errors="replace").split() if first.startswith(b"#!") else []
    if not words:
        return []
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        found = shutil.which(words[1])
        return [words[0], found] if found else [words[0]]
    return [words[0]]
