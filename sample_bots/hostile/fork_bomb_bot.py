"""Forks child after child until fork fails.

Usage: ``fork_bomb_bot.py [BOUND]``; reports ``fork failed after <n> children: <errno>``
(EAGAIN when RLIMIT_NPROC stops it) or ``forked <BOUND> children`` when nothing stopped it
before its own safety bound (default 300). The children wait on a pipe and exit when the
parent does, so nothing lingers either way.
"""

from __future__ import annotations

import os
import sys

from kingmaker.sample_bots.hostile.common import errno_name, report


def main(bound: int) -> None:
    read_end, write_end = os.pipe()
    children = 0
    try:
        while children < bound:
            if os.fork() == 0:
                os.close(write_end)
                os.read(read_end, 1)  # returns when the parent has exited
                os._exit(0)
            children += 1
    except OSError as error:
        report(f"fork failed after {children} children: {errno_name(error)}")
        return
    report(f"forked {children} children")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
