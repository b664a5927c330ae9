"""Limits for a whole bot, not each of its processes: a control group (cgroup) per launched bot.

Where the machine lets the server make cgroups (root, or a delegated subtree), each bot gets
one group per hierarchy that offers something, made below the server's own group (so the
server's own limits still cover its bots), and every process the bot starts stays in it:

- memory: ``memory.max`` (v2) or ``memory.limit_in_bytes`` (v1) for all its processes and the
  tmpfs folders it writes; past it the kernel's OOM killer kills one of them (SIGKILL).
- processes: ``pids.max``: ``fork`` fails with EAGAIN, whichever user the processes run as.
- CPU share: ``cpu.max`` (v2) or ``cpu.cfs_quota_us`` (v1): the bot's processes together use at
  most ``cpu_cores`` cores, so a spinning bot cannot starve the other matches; and ``cpu.weight``
  (v2) or ``cpu.shares`` (v1): a build's low weight lets matches go first.
- the end of the match: ``cgroup.kill`` (v2, Linux 5.14) kills every process in the group at
  once, one that left its process group with ``setsid()`` too; without it, the processes
  listed in the group are killed until none is left.

Machines differ: pure v2 with controllers delegated (systemd), v1 only, or hybrid (v1 controllers
beside a v2 tree with none, like the machine this was written on). ``cgroup_support()`` looks
once and takes each controller from wherever it is usable; none at all means the rlimits of
``sandbox.Limits`` are the only limits (docs/security.md says what that leaves open).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import logging
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("kingmaker.server.jail.cgroups")

CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")
"""``cpuacct`` (v1 only; v2 counts CPU time in every group's ``cpu.stat``): a build's limit is its
CPU time, its processes' together, the dead ones' too."""
CPU_PERIOD_US = 100_000
_numbers = itertools.count(1)


@dataclass(frozen=True)
class Hierarchy:
    """One mounted cgroup hierarchy the server may make groups in."""

    version: int
    parent: Path
    """The server's own group in it: bot groups are made below."""
    controllers: frozenset[str]
    """The controllers of ``CONTROLLERS`` that work for groups made below ``parent``."""


@dataclass(frozen=True)
class CgroupSupport:
    hierarchies: tuple[Hierarchy, ...] = ()
    reason: str = ""

    @property
    def controllers(self) -> frozenset[str]:
        return frozenset(name for tree in self.hierarchies for name in tree.controllers)

    @property
    def can_kill(self) -> bool:
        """Whether a bot's whole process tree can be found (and so killed) through its groups."""
        return bool(self.hierarchies)

    def describe(self) -> str:
        if not self.hierarchies:
            return f"no cgroups ({self.reason})"
        names = ", ".join(sorted(self.controllers)) or "none"
        versions = "+".join(f"v{tree.version}" for tree in self.hierarchies)
        return f"cgroups {versions}: controllers {names}"


@dataclass
class BotCgroup:
    """A bot's groups, one per hierarchy; ``join`` runs in the bot's process before it execs."""

    folders: dict[Path, Hierarchy] = field(default_factory=dict)

    @classmethod
    def create(
        cls, memory_bytes: int, processes: int, cpu_cores: float, cpu_weight: int = 0
    ) -> BotCgroup | None:
        """New groups with these limits (0: none), or None where the machine offers no cgroups."""
        support = cgroup_support()
        if not support.hierarchies:
            return None
        name = f"kingmaker-{os.getpid()}-{next(_numbers)}"
        group = cls()
        try:
            for tree in support.hierarchies:
                folder = tree.parent / name
                folder.mkdir()
                group.folders[folder] = tree
                _set_limits(folder, tree, memory_bytes, processes, cpu_cores, cpu_weight)
        except OSError as error:
            group.remove()
            log.warning("could not make a cgroup for a bot (%s); its limits are per process", error)
            return None
        return group

    def join(self) -> None:
        """Move the calling process into every group (in the child, between fork and exec)."""
        pid = str(os.getpid())
        for folder in self.folders:
            (folder / "cgroup.procs").write_text(pid)

    def pids(self) -> set[int]:
        found: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError, ValueError):
                found.update(int(line) for line in (folder / "cgroup.procs").read_text().split())
        return found

    def kill(self) -> None:
        """SIGKILL every process in the groups, including those that left the process group."""
        for folder, tree in self.folders.items():
            if tree.version == 2 and (folder / "cgroup.kill").exists():
                with contextlib.suppress(OSError):
                    (folder / "cgroup.kill").write_text("1")
        # v1 (or an old kernel): kill what is listed until nothing is; a process forking as fast
        # as it can is still caught, since killed processes fork no more (and pids.max bounds it).
        for _ in range(100):
            alive = self.pids()
            if not alive:
                return
            for pid in alive:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def events(self) -> dict[str, int]:
        """How often each whole-bot limit was hit: ``oom_kill`` (memory), ``pids_max``."""
        seen = {"oom_kill": 0, "pids_max": 0}
        for folder in self.folders:
            for file, key, event in (
                ("memory.events", "oom_kill", "oom_kill"),
                ("memory.oom_control", "oom_kill", "oom_kill"),
                ("pids.events", "max", "pids_max"),
            ):
                with contextlib.suppress(OSError, ValueError):
                    for line in (folder / file).read_text().splitlines():
                        words = line.split()
                        if len(words) == 2 and words[0] == key:
                            seen[event] += int(words[1])
        return seen

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process that was ever in the groups (user and system), or None
        where no group counts it."""
        for folder, tree in self.folders.items():
            with contextlib.suppress(OSError, ValueError):
                if tree.version == 2:
                    for line in (folder / "cpu.stat").read_text().splitlines():
                        if line.startswith("usage_usec "):
                            return int(line.split()[1]) / 1e6
                elif "cpuacct" in tree.controllers:
                    return int((folder / "cpuacct.usage").read_text()) / 1e9
        return None

    def set_cpu_weight(self, weight: int) -> bool:
        """Give the groups another CPU weight (as ``cpu_weight``); False where none carries one."""
        done = False
        for folder, tree in self.folders.items():
            if "cpu" in tree.controllers:
                with contextlib.suppress(OSError):
                    _write_weight(folder, tree, weight)
                    done = True
        return done

    def remove(self) -> None:
        """Remove the groups (after ``kill``: a group with processes cannot be removed)."""
        # Rebound, not emptied in place: this runs in a worker thread while the event loop may
        # be reading the groups (a clock's ``cpu_seconds``), and a dict changed under a running
        # loop over it raises.
        folders, self.folders = self.folders, {}
        for folder in folders:
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)  # the last processes are still exiting

    @property
    def weighs_cpu(self) -> bool:
        """Whether a cpu controller carries the group's CPU weight."""
        return any("cpu" in tree.controllers for tree in self.folders.values())


def _set_limits(
    folder: Path, tree: Hierarchy, memory_bytes: int, processes: int, cpu_cores: float, cpu_weight: int = 0
) -> None:
    def write(name: str, value: object) -> None:
        (folder / name).write_text(str(value))

    if memory_bytes and "memory" in tree.controllers:
        if tree.version == 2:
            write("memory.max", memory_bytes)
            with contextlib.suppress(OSError):  # no swap accounting on this kernel
                write("memory.swap.max", 0)
        else:
            write("memory.limit_in_bytes", memory_bytes)
            with contextlib.suppress(OSError):
                write("memory.memsw.limit_in_bytes", memory_bytes)
    if processes and "pids" in tree.controllers:
        write("pids.max", processes)
    if cpu_cores and "cpu" in tree.controllers:
        quota = max(1000, int(cpu_cores * CPU_PERIOD_US))
        if tree.version == 2:
            write("cpu.max", f"{quota} {CPU_PERIOD_US}")
        else:
            write("cpu.cfs_period_us", CPU_PERIOD_US)
            write("cpu.cfs_quota_us", quota)
    if cpu_weight and "cpu" in tree.controllers:
        _write_weight(folder, tree, cpu_weight)


def _write_weight(folder: Path, tree: Hierarchy, weight: int) -> None:
    weight = max(1, min(10_000, weight))
    if tree.version == 2:
        (folder / "cpu.weight").write_text(str(weight))
    else:  # v1's shares: 1024 is the default, as 100 is v2's weight
        (folder / "cpu.shares").write_text(str(max(2, weight * 1024 // 100)))


@functools.cache
def cgroup_support() -> CgroupSupport:
    """Which hierarchies and controllers this server can use for its bots (looked at once)."""
    try:
        mounts = Path("/proc/self/mounts").read_text().splitlines()
        own = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError as error:
        return CgroupSupport(reason=f"cannot read /proc: {error}")
    own_v1: dict[str, str] = {}
    own_v2 = None
    for line in own:
        number, names, path = line.split(":", 2)
        if number == "0" and not names:
            own_v2 = path
        for name in names.split(","):
            own_v1[name] = path
    trees: list[Hierarchy] = []
    taken: set[str] = set()
    v2_mounts = [line.split()[1] for line in mounts if line.split()[2] == "cgroup2"]
    if own_v2 is not None and v2_mounts:
        tree = _v2_hierarchy(Path(v2_mounts[0]), own_v2)
        if tree is not None:
            trees.append(tree)
            taken |= tree.controllers
    for line in mounts:
        _, where, kind, options = line.split()[:4]
        if kind != "cgroup":
            continue
        offered = {name for name in options.split(",") if name in CONTROLLERS} - taken
        if not offered:
            continue
        parent = _own_folder(Path(where), own_v1.get(min(offered), "/"))
        if parent is not None and _can_make_groups(parent):
            trees.append(Hierarchy(1, parent, frozenset(offered)))
            taken |= offered
    if not trees:
        return CgroupSupport(reason="no cgroup hierarchy this server may make groups in")
    _remove_stale(trees)
    return CgroupSupport(tuple(trees))


def _v2_hierarchy(mount: Path, own: str) -> Hierarchy | None:
    parent = _own_folder(mount, own)
    if parent is None or not _can_make_groups(parent):
        return None
    wanted = set(CONTROLLERS) & set((parent / "cgroup.controllers").read_text().split())
    enabled: set[str] = set()
    for name in sorted(wanted):
        # Fails (EBUSY) when the server's own group holds processes and is not the root: the
        # "no internal processes" rule. The group still serves to find and kill the bot's tree.
        with contextlib.suppress(OSError):
            (parent / "cgroup.subtree_control").write_text(f"+{name}")
    with contextlib.suppress(OSError):
        enabled = wanted & set((parent / "cgroup.subtree_control").read_text().split())
    return Hierarchy(2, parent, frozenset(enabled))


def _own_folder(mount: Path, own: str) -> Path | None:
    """The server's group inside a mounted hierarchy (a container may mount only its own part)."""
    inside = mount / own.lstrip("/")
    if inside.is_dir():
        return inside
    return mount if mount.is_dir() else None


def _can_make_groups(parent: Path) -> bool:
    probe = parent / f"kingmaker-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return False
    with contextlib.suppress(OSError):
        probe.rmdir()
    return True


def _remove_stale(trees: list[Hierarchy]) -> None:
    """Remove the empty bot groups left by servers that were killed (their pid is gone)."""
    for tree in trees:
        for folder in tree.parent.glob("kingmaker-*-*"):
            pid = folder.name.split("-")[1]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                with contextlib.suppress(OSError):
                    folder.rmdir()
