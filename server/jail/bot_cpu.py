"""The CPU time a managed bot's processes have used: what the clock charges it for.

A bot on a busy machine may wait for a core; that wait is not its own doing. So for a bot the
server launched, the referee charges the CPU time its process tree used while a request was
open (all threads, all descendants it can see: the jail's launcher and the bot under it), and
keeps wall time only as a ceiling for a bot that hangs without using CPU.

Linux only: ``clock_getcpuclockid`` gives a precise CPU clock of another process (no 10 ms ticks),
and ``/proc/<pid>/task/<tid>/children`` its children. Where either is missing, ``cpu_clock``
returns None and the referee falls back to wall time.

The wall-time ceiling has the same blind spot the other way: on an overloaded machine a bot that
uses next to no CPU may still wait long for a core to run on. The kernel counts that wait per
thread (the run delay in ``/proc/<pid>/task/<tid>/schedstat``); ``waited_since`` reads it, and the
referee adds it to the ceiling, so only a bot that hangs while it *could* run is called late.
The kernel adds a wait to a thread's count only when the thread gets a CPU again, so for a bot
shut out entirely the referee also asks whether a thread is ready to run right now
(``runnable_now``), and if so looks again shortly instead of calling it late.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import time
from collections.abc import Iterator
from pathlib import Path

TREE_REFRESH_S = 1.0
"""How often the list of the tree's processes is read again (a bot may start helpers)."""
WAIT_BASELINE_S = 1.0
"""How often ``note_request`` reads the tree's run delay afresh (reading it costs a file per
thread, too much for every request; it is only needed when a reply is very late)."""


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
        self._clocks: list[int] = _clock_ids(self._tree)
        self._read_at = 0.0
        self._baseline = (float("-inf"), 0.0)
        """(monotonic time, ``waiting_seconds``) of the last run-delay reading."""

    def seconds(self) -> float:
        self._refresh_tree()
        total = 0.0
        for clock in self._clocks:  # (read twice a decision: no generator, no call per clock)
            try:
                total += time.clock_gettime(clock)
            except OSError:
                continue  # the process is gone since the tree was read
        return total

    def _refresh_tree(self) -> None:
        """Read the tree's processes again if not read in the last ``TREE_REFRESH_S``."""
        now = time.monotonic()
        if now - self._read_at > TREE_REFRESH_S:
            tree = _descendants(self.pid)
            if tree != self._tree:  # (mostly the same processes: their clocks are looked up once)
                self._tree = tree
                self._clocks = _clock_ids(tree)
            self._read_at = now

    def note_request(self) -> None:
        """A request goes out now: keep a run-delay reading from no later than now (a fresh one
        at most every ``WAIT_BASELINE_S``)."""
        now = time.monotonic()
        if now - self._baseline[0] > WAIT_BASELINE_S:
            self._baseline = (now, self.waiting_seconds())

    def waited_since_request(self) -> float:
        """Seconds the tree's threads waited for a CPU since the last ``note_request`` baseline
        (so since at least the request went out; up to ``WAIT_BASELINE_S`` earlier)."""
        return max(0.0, self.waiting_seconds() - self._baseline[1])

    def runnable_now(self) -> bool:
        """Whether a thread of the tree is ready to run (or running) at this moment: a bot that
        has not answered and is runnable is being kept from a CPU or is computing, not blocked."""
        return any(_state(stat) == "R" for stat in self._each_thread("stat"))

    def waiting_seconds(self) -> float:
        """Time the tree's threads spent ready to run but waiting for a CPU, summed over threads."""
        total = 0
        for schedstat in self._each_thread("schedstat"):
            try:
                total += int(schedstat.split()[1])
            except (IndexError, ValueError):
                continue  # a kernel without scheduler statistics
        return total / 1e9

    def _each_thread(self, name: str) -> Iterator[str]:
        """The text of ``/proc/<pid>/task/<tid>/<name>`` for each thread of the tree still alive
        (a bot still starting, whose hello is awaited, has had no decision to read its tree)."""
        self._refresh_tree()
        for pid in self._tree:
            try:
                threads = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue  # gone since the tree was read
            for thread in threads:
                try:
                    yield _read_proc(f"/proc/{pid}/task/{thread}/{name}").decode(errors="replace")
                except OSError:
                    continue


def _state(stat: str) -> str:
    """A thread's state letter from its ``stat`` line (after the command name, which may hold
    spaces and parentheses)."""
    fields = stat.rpartition(")")[2].split()
    return fields[0] if fields else ""


def cpu_clock(pid: int) -> ProcessTreeClock | None:
    """A clock for this process tree, or None where this machine cannot read one."""
    if _LIBC is None or not Path(f"/proc/{pid}/task/{pid}/children").exists():
        return None
    return ProcessTreeClock(pid)


def _clock_ids(pids: list[int]) -> list[int]:
    """The CPU clock of each process still alive. Looked up once per tree reading: the lookup
    costs two system calls, a reading through ``time.clock_gettime`` one."""
    assert _LIBC is not None
    found = []
    for pid in pids:
        clock = ctypes.c_int()
        if _LIBC.clock_getcpuclockid(pid, ctypes.byref(clock)) == 0:
            found.append(clock.value)
    return found


def _read_proc(path: str) -> bytes:
    """A small file of /proc, whole: a text-mode ``open`` costs a buffer and a decoder per file,
    and the tree and its run delay are read file by file, every second, for every seat."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while chunk := os.read(descriptor, 4096):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _descendants(pid: int) -> list[int]:
    found, waiting = [], [pid]
    while waiting:
        current = waiting.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                listing = _read_proc(f"/proc/{current}/task/{task}/children")
                waiting.extend(int(child) for child in listing.split())
        except OSError:
            continue
    return found


TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """CPU time of a process tree from ``/proc``, where no cgroup counts it: each living process's
    own time and that of the children it has waited for (so a compiler that ran and exited is
    counted in its parent's). Ticks (10 ms), enough for a build's limit in minutes."""
    ticks = 0
    for member in _descendants(pid):
        try:
            fields = _read_proc(f"/proc/{member}/stat").rpartition(b")")[2].split()
            ticks += sum(int(field) for field in fields[11:15])  # utime, stime, cutime, cstime
        except (OSError, ValueError):
            continue  # gone since the tree was read
    return ticks / TICKS_PER_SECOND
