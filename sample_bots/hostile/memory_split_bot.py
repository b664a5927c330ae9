"""Spreads its memory over several processes, each under any per-process limit.

Usage: ``memory_split_bot.py CHILDREN MIB``: each child fills MIB MiB (touching every page) and
waits; the parent then reports ``child <i>: killed by <signal>`` for each child that was killed
(SIGKILL from the OOM killer when a whole-bot memory limit stops it) or ``<n> children held
<n * MIB> MiB`` when nothing did. The children exit after a few seconds either way.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from kingmaker.sample_bots.hostile.common import report


def fill(mib: int) -> None:
    block = bytearray(mib * 1024**2)
    for index in range(0, len(block), 4096):
        block[index] = 1
    time.sleep(3)


def main(children: int, mib: int) -> None:
    pids = []
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            fill(mib)
            os._exit(0)
        pids.append(pid)
    killed = 0
    for index, pid in enumerate(pids):
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            killed += 1
            report(f"child {index}: killed by {signal.Signals(os.WTERMSIG(status)).name}")
    if not killed:
        report(f"{children} children held {children * mib} MiB")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
