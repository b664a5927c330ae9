"""The CPU time a managed bot's processes have used: what the clock charges it for.

A bot on a busy machine may wait for a core; that wait is not its own doing. So for a bot the
server launched, the referee charges the CPU time its process tree used while a request was
open (all threads, all descendants it can see: the jail's launcher and the bot under it), and
keeps wall time only as a ceiling for a bot that hangs without using CPU.

Linux only: ``clock_getcpuclockid`` gives a precise CPU clock of another process (no 10 ms ticks),
and ``/proc/<pid>/task/<tid>/children`` its children. Where either is missing, ``cpu_clock``
returns None and the referee falls back to wall time.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import time
from pathlib import Path

TREE_REFRESH_S = 1.0
"""How often the list of the tree's processes is read again (a bot may start helpers)."""


class _Timespec(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_long), ("nanoseconds", ctypes.c_long)]


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name, use_errno=True) if name else None
    except OSError:
        return None


_LIBC = _libc()


class ProcessTreeClock:
    """CPU seconds used by a process and its descendants (those alive when counted)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._tree: list[int] = [pid]
        self._read_at = 0.0

    def seconds(self) -> float:
        now = time.monotonic()
        if now - self._read_at > TREE_REFRESH_S:
            self._tree = _descendants(self.pid)
            self._read_at = now
        return sum(_cpu_seconds(pid) for pid in self._tree)


def cpu_clock(pid: int) -> ProcessTreeClock | None:
    """A clock for this process tree, or None where this machine cannot read one."""
    if _LIBC is None or not Path(f"/proc/{pid}/task/{pid}/children").exists():
        return None
    return ProcessTreeClock(pid)


def _cpu_seconds(pid: int) -> float:
    assert _LIBC is not None
    clock = ctypes.c_int()
    if _LIBC.clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        return 0.0  # gone since the tree was read
    spent = _Timespec()
    if _LIBC.clock_gettime(clock.value, ctypes.byref(spent)) != 0:
        return 0.0
    return float(spent.seconds + spent.nanoseconds / 1e9)


def _descendants(pid: int) -> list[int]:
    found, waiting = [], [pid]
    while waiting:
        current = waiting.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as listing:
                    waiting.extend(int(child) for child in listing.read().split())
        except OSError:
            continue
    return found
