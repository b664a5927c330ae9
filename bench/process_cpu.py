"""CPU time per decision, process by process, read from /proc (issue 50).

A throughput ratio on two shared cores mixes everything: the referee's own work, its bots', the
jail's and whatever else the machine runs. This splits it. A ``TreeSampler`` watches a process
tree while a run plays, keeping each process's CPU clock (utime + stime) as last seen, so a
process that exits mid-run keeps what it spent until its last reading, and sorts the processes
into kinds (the server's main process, its worker processes, the bots, the jail). Two runs of
different lengths give the marginal CPU per decision, ``(cpu_long - cpu_short) / (decisions_long -
decisions_short)``, in which whatever a run pays once (starting processes, setting up a league)
cancels out.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK")

Kind = str
Classify = Callable[[int, bytes, Kind | None], Kind | None]
"""(pid, command line, the parent's kind or None) -> this process's kind, or None to leave it out."""


@dataclass(frozen=True)
class Reading:
    """A process's CPU clock: which process (pid and start time, since pids are reused) and the
    seconds it has spent, user and system together."""

    pid: int
    started: int
    seconds: float


def read_cpu(pid: int) -> Reading | None:
    """The CPU a process has spent so far, or None if it has gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and brackets: fields are counted after its last ')'.
    fields = stat[stat.rindex(b")") + 2 :].split()
    utime, stime, started = int(fields[11]), int(fields[12]), int(fields[19])
    return Reading(pid, started, (utime + stime) / TICKS)


def children(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (a child belongs to the thread that started it)."""
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:  # a thread that ended meanwhile
            continue
    return found


def command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def walk(root: int, classify: Classify) -> Iterator[tuple[int, Kind]]:
    """Every process of the tree under ``root`` (itself included) with its kind, parents first."""
    stack: list[tuple[int, Kind | None]] = [(root, None)]
    while stack:
        pid, parent_kind = stack.pop()
        kind = classify(pid, command_line(pid), parent_kind)
        if kind is not None:
            yield pid, kind
        stack += [(child, kind if kind is not None else parent_kind) for child in children(pid)]


class TreeSampler:
    """The CPU each kind of process in a tree spends from now until ``stop``: polled every
    ``every`` seconds, each process counted from its first reading (or from zero if it started
    after the sampler did) to its last."""

    def __init__(self, root: int, classify: Classify, every: float = 0.1) -> None:
        self.root, self.classify, self.every = root, classify, every
        self._first: dict[tuple[int, int], float] = {}
        self._last: dict[tuple[int, int], tuple[Kind, float]] = {}
        self._halt = threading.Event()
        self._read(initial=True)
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()

    def stop(self) -> dict[Kind, float]:
        """Seconds of CPU spent by each kind of process while the sampler ran."""
        self._halt.set()
        self._thread.join()
        self._read(initial=False)
        return spent(self._first, self._last)

    def _poll(self) -> None:
        while not self._halt.wait(self.every):
            self._read(initial=False)

    def _read(self, initial: bool) -> None:
        for pid, kind in walk(self.root, self.classify):
            reading = read_cpu(pid)
            if reading is None:
                continue
            key = (reading.pid, reading.started)
            self._first.setdefault(key, reading.seconds if initial else 0.0)
            self._last[key] = (kind, reading.seconds)


def spent(
    first: Mapping[tuple[int, int], float], last: Mapping[tuple[int, int], tuple[Kind, float]]
) -> dict[Kind, float]:
    """Seconds per kind: each process's last reading less its first."""
    totals: dict[Kind, float] = {}
    for key, (kind, seconds) in last.items():
        totals[kind] = totals.get(kind, 0.0) + seconds - first.get(key, 0.0)
    return totals


def marginal_per_decision(
    short: Mapping[Kind, float], short_decisions: int, long: Mapping[Kind, float], long_decisions: int
) -> dict[Kind, float]:
    """Microseconds of CPU per decision for each kind, between a short run and a long one: what the
    extra decisions cost, with whatever both runs paid once cancelled out."""
    extra = long_decisions - short_decisions
    if extra <= 0:
        raise ValueError(
            f"the long run must make more decisions than the short ({long_decisions} vs {short_decisions})"
        )
    kinds = set(short) | set(long)
    return {kind: (long.get(kind, 0.0) - short.get(kind, 0.0)) / extra * 1e6 for kind in sorted(kinds)}


def classify_served(pid: int, command: bytes, parent: Kind | None) -> Kind | None:
    """The kind of each process under ``kingmaker serve``: the server itself, its workers, the
    jail (bubblewrap and what it starts before the bot), the bots (and what they start)."""
    if parent is None:
        return "main"
    argv0 = command.split(b"\0", 1)[0]
    if argv0.endswith(b"bwrap"):
        return "jail"
    if parent == "bots":
        return "bots"
    if b"process_worker" in command:
        return "workers"
    if b"sample_bots" in command:
        return "bots"
    return parent
