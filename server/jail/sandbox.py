"""What a managed bot may use: resource limits, and, where bubblewrap works, a namespace jail.

Two layers, applied by ``kingmaker.server.jail.launcher``:

- ``Limits``: kernel resource limits (setrlimit) set in the bot's process before it runs. They
  work everywhere, with one big exception: RLIMIT_NPROC counts every process *of the user*, and
  the kernel never enforces it for root. So the process limit is made to mean "per bot" where
  it can be (see ``processes_rlimit`` and ``BotUids``) and is documented where it cannot.
- ``SandboxPolicy``: the launcher runs the bot under bubblewrap (``bwrap``) when it is installed
  and a probe shows it works here (unprivileged user namespaces are often disabled, and
  containers often forbid mounts). The bot then sees only read-only system and Python folders,
  the folders of the kingmaker packages, its own folder and the server's Unix socket; it has no
  network (a new, empty network namespace), no view of other processes (a new PID namespace,
  whose processes all die with it) and no way back to the server but that socket. The server's
  home (database, admin token) is never shown: where a folder the jail shows holds it, an empty
  folder is mounted over it (``hidden_paths``).

When the server runs as root, bubblewrap is run as root (without a user namespace, which would
map the bot back to root) and the bot is switched to a user id of its own inside the jail, so
that RLIMIT_NPROC is enforced and counts this bot alone. docs/security.md has the threat model.
"""

from __future__ import annotations

import functools
import glob
import importlib.util
import logging
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("kingmaker.server.jail.sandbox")

GiB = 1024**3
MiB = 1024**2

# The kingmaker packages a bot may import (the SDK, the engines, the generated protocol code, the
# sample bots, the environments' arrays for a trained policy, and the command line for
# `kingmaker bridge` and `kingmaker play-policy`). Each is shown on its own: in a
# checkout (an editable install) they are folders of the repository, whose root also holds the
# server's home (./.kingmaker), .git and everything else, which a bot has no business reading.
KINGMAKER_PACKAGES = (
    "kingmaker",
    "kingmaker.games",
    "kingmaker.sdk",
    "kingmaker.server",
    "kingmaker.ladder",
    "kingmaker.sample_bots",
    "kingmaker.envs",
    "kingmaker.v1",
)

# Folders every program needs, bound read-only; on merged-/usr systems most are symlinks.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# The few files of /etc a program needs to start; the rest of /etc (passwords, keys) stays out.
SYSTEM_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    # Debian's JDKs keep their configuration here (conf/security/java.security is a link into
    # it): without it a JVM cannot start. Settings only, no secrets.
    *sorted(glob.glob("/etc/java-*-openjdk")),
    # Interpreters' settings, so a bot behaves as outside (PHP without php.ini warns on stdout).
    *("/etc/php", "/etc/perl", "/etc/ruby", "/etc/gemrc", "/etc/nodejs", *glob.glob("/etc/python3*")),
)

# Run inside the jail as root: give the bot's folders (fresh tmpfs, ':'-separated) to its own user,
# become that user, enter its start folder (only that user may enter its own), then run the bot.
# Changing to a non-zero uid clears every capability, and bubblewrap has already set no_new_privs.
# Its own arguments come through the environment (bwrap's --setenv), which it then clears: its
# command line, as the jail's /proc shows it, names no host folder.
DROP_TO_UID = (
    "import os; e = os.environ; uid = int(e.pop('KINGMAKER_JAIL_UID')); "
    "[os.chown(f, uid, uid) for f in e.pop('KINGMAKER_JAIL_OWNED').split(':')]; "
    "os.setgroups([]); os.setgid(uid); os.setuid(uid); "
    "os.chdir(e.pop('KINGMAKER_JAIL_CWD')); os.execvp(os.sys.argv[1], os.sys.argv[1:])"
)

BOT_FOLDER = "/bot"
"""Where a built bot's folder is in the jail, at build time and at play time alike, so that paths a
build bakes in stay true wherever the built folder is kept on the host."""
SUBMISSION_FOLDER = "/submission"
"""At build time: where the unpacked submission is shown (read-only), for the build to copy."""
OUTPUT_FOLDER = "/out"
"""Where the one host folder a step that unpacks or builds may write is shown (``output_folder``)."""
TOOLCHAIN_CACHE_FOLDER = "/toolchain-cache"
"""At build time: where a language's prepared toolchain cache is shown, read-only
(``building.toolchain_caches``)."""
WORK_FOLDER = "/home/bot"
"""A jailed bot's own folder (a tmpfs: its HOME, TMPDIR and default working directory)."""
JAIL_SOCKET = "/run/kingmaker/arena.sock"
"""Where the server's socket is in the jail: the jail's paths name no host folder (its
``/proc/self/mountinfo`` shows where each mount is)."""

HOW_TO_GET_A_JAIL = (
    "install bubblewrap (apt-get install bubblewrap), "
    "or start the server with --allow-unjailed if you trust every bot it runs"
)


@dataclass(frozen=True)
class Limits:
    """Resource limits for one bot process and each process it starts (0 means no limit).

    The defaults let a Python bot with gRPC threads and a search tree run a long league (the
    process lives across matches) while a runaway bot is stopped long before the machine
    suffers. A Python + grpc bot reserves ~0.5-1 GiB of address space for thread stacks and
    malloc arenas before it allocates anything, hence 2 GiB rather than less.
    """

    cpu_seconds: int = 3600
    """CPU time over the process's life; SIGXCPU at the limit, SIGKILL two seconds later."""
    memory_bytes: int = 2 * GiB
    """Address space (RLIMIT_AS): an allocation beyond it fails (MemoryError, ENOMEM)."""
    processes: int = 64
    """Processes and threads (RLIMIT_NPROC), see ``processes_rlimit``: fork fails with EAGAIN."""
    open_files: int = 256
    """File descriptors: open fails with EMFILE."""
    file_bytes: int = 256 * MiB
    """Largest file the bot may write (RLIMIT_FSIZE): write fails with EFBIG (SIGXFSZ)."""
    bot_memory_bytes: int = 2 * GiB
    """Memory of the whole bot, every process and its tmpfs folders together (cgroup memory
    limit, where the machine has one): past it the OOM killer kills one of its processes."""
    cpu_cores: float = 0.0
    """Cores the whole bot may keep busy at once (cgroup CPU quota, where there is one; 0: no
    quota). Off by default: a quota throttles every thread of the bot once it is used up in a
    100 ms period, so a bot thinking hard would also be late to read and answer its stream.
    Without it the bot's cgroup still has one task's weight: under contention all its
    processes together get one share of the CPU, however many it starts."""
    disk_bytes: int = 256 * MiB
    """Size of the bot's folder in the jail (a tmpfs): writing more fails with ENOSPC."""
    cpu_weight: int = 0
    """Its share of the CPU under contention against other groups, as cgroup v2's ``cpu.weight``
    (1 to 10,000; 100 is every group's default; v1: ``cpu.shares`` scaled), 0: the default. Where
    there is no cpu controller, a weight below 100 becomes a ``nice`` value instead."""

    @property
    def bot_processes(self) -> int:
        """The cgroup's pids.max: the bot's allowance plus the jail's own two (bwrap and its
        init in the PID namespace)."""
        return self.processes + 2 if self.processes else 0

    def apply(self) -> None:
        """Runs in the child between fork and exec."""
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.cpu_seconds:
            # A hard limit above the soft one: the bot gets SIGXCPU (which says why), not SIGKILL.
            resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds + 2))
        for kind, value in (
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_FSIZE, self.file_bytes),
        ):
            if value:
                resource.setrlimit(kind, (value, value))


@dataclass(frozen=True)
class SandboxPolicy:
    """How to confine a managed bot. ``isolate`` asks for bubblewrap; without it (or when it does
    not work here) the bot still gets the limits, its own directory and a scrubbed environment."""

    limits: Limits = field(default_factory=Limits)
    isolate: bool = True
    allow_unjailed: bool = False
    """Where the jail does not work, run the bot anyway (trusted code); otherwise it is refused."""
    unix_socket: str | None = None
    """The server's socket, bound into the jail: the only way out. Give the bot ``server_address``."""
    read_only_paths: tuple[str, ...] = ()
    """Extra folders the bot needs to read (its own folder)."""
    hidden_paths: tuple[str, ...] = ()
    """What a bot must never see, wherever it is (the server's home, its database file): where
    a folder the jail shows holds one of these, it is covered (an empty folder, or an empty file)."""
    tmp_bytes: int = 64 * MiB
    """Size of the jail's private /tmp (memory-backed), so many small files cannot fill memory."""
    bot_folder: str | None = None
    """A built bot's folder on the host, shown read-only at ``BOT_FOLDER`` (where it starts)."""
    build_from: str | None = None
    """At build time: the unpacked submission on the host, shown read-only at
    ``SUBMISSION_FOLDER``; ``BOT_FOLDER`` is then a tmpfs of ``limits.disk_bytes`` that the build
    may write, owned by the build's user, which the build fills from the submission."""
    toolchain_cache: str | None = None
    """At build time: the prepared toolchain cache of the build's language on the host, shown
    read-only at ``TOOLCHAIN_CACHE_FOLDER`` (a read-only mount: no user in the jail writes it)."""
    output_folder: str | None = None
    """An empty host folder, shown read-write at ``OUTPUT_FOLDER`` and given to the jailed user:
    where a step that unpacks an archive or keeps a build writes (``jailed_unpack``)."""

    @property
    def server_address(self) -> str:
        """The address a bot in this sandbox must be given (KINGMAKER_SERVER); the launcher
        gives a jailed bot ``JAIL_SOCKET`` in its place."""
        if self.unix_socket is None:
            raise ValueError("this policy has no unix_socket: a jailed bot has no other way out")
        return f"unix:{self.unix_socket}"


@dataclass(frozen=True)
class Bubblewrap:
    """Whether bubblewrap can be used on this machine, and if not, why."""

    path: str | None
    usable: bool
    reason: str


def running_as_root() -> bool:
    return os.geteuid() == 0


@functools.cache
def bubblewrap() -> Bubblewrap:
    """Find bwrap and prove it works here by jailing ``true`` with the flags bots get."""
    # $KINGMAKER_BWRAP names another bwrap, or none at all ("none": how a test or an operator
    # takes the jail away without touching PATH).
    chosen = os.environ.get("KINGMAKER_BWRAP") or "bwrap"
    path = None if chosen == "none" else shutil.which(chosen)
    if path is None:
        return Bubblewrap(None, False, "bwrap is not installed")
    probe = [*namespace_flags(), *system_binds(), "--size", str(MiB), "--tmpfs", "/tmp", "--", "true"]
    try:
        done = subprocess.run([path, *probe], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Bubblewrap(path, False, f"bwrap could not run: {error}")
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip() or f"exit code {done.returncode}"
        return Bubblewrap(path, False, f"bwrap does not work here: {message}")
    return Bubblewrap(path, True, "bwrap works")


def namespace_flags() -> list[str]:
    """New PID, network, IPC, UTS and cgroup namespaces; a user namespace unless we are root."""
    flags = ["--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    flags.append("--unshare-cgroup-try")
    if running_as_root():
        # Keep only what the jail's first step needs to hand the bot its folder and switch to
        # the bot's own user.
        flags += ["--cap-drop", "ALL"]
        for capability in ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN"):
            flags += ["--cap-add", capability]
    else:
        flags.append("--unshare-user")
    return flags


def system_binds() -> list[str]:
    flags = ["--proc", "/proc", "--dev", "/dev"]
    for name in SYSTEM_PATHS:
        if os.path.islink(name):
            flags += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            flags += ["--ro-bind", name, name]
    # /etc itself is made world-readable first: bwrap would create it 0700 for the files below.
    flags += ["--perms", "0755", "--dir", "/etc"]
    for name in SYSTEM_FILES:
        flags += ["--ro-bind-try", name, name]
    return flags


def python_paths() -> list[str]:
    """The interpreter the server runs (and its virtualenv) and the kingmaker packages."""
    found = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, *code_paths()}
    return sorted(found)


@functools.cache
def code_paths() -> tuple[str, ...]:
    """The folders the kingmaker packages are imported from (for an installed package, folders
    of site-packages; for a checkout, the repository's layer folders, never its root)."""
    from kingmaker.games.registry import game_names

    found: set[str] = set()
    for name in (*KINGMAKER_PACKAGES, *(f"kingmaker.{game}" for game in game_names())):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:
            # (an editable install's finder adds a placeholder entry that is no folder)
            found.update(os.path.realpath(f) for f in spec.submodule_search_locations if os.path.isdir(f))
    return tuple(sorted(found))


def shown_paths(policy: SandboxPolicy) -> list[str]:
    """Every folder or file the jail shows a bot under ``policy``, besides its own tmpfs folder."""
    return [*SYSTEM_PATHS, *SYSTEM_FILES, *python_paths(), *policy.read_only_paths]


def exposed_secret(hidden: Sequence[str], shown: Sequence[str]) -> tuple[str, str] | None:
    """A hidden path that cannot be covered because a folder the jail must show lies inside it
    (covering it would hide that folder too): ``(hidden, shown)``, or None. The server refuses to
    start with such a home (``KINGMAKER_HOME=/usr``, or the home a checkout's parent)."""
    for secret in hidden:
        for path in shown:
            for one, other in ((secret, path), (os.path.realpath(secret), os.path.realpath(path))):
                if _inside(other, [one]):
                    return secret, path
    return None


def bubblewrap_command(
    bwrap: str,
    command: Sequence[str],
    policy: SandboxPolicy,
    workdir: str,
    cwd: str,
    uid: int | None,
) -> list[str]:
    """The bwrap command line that runs ``command`` jailed, in ``cwd``; ``workdir`` is the path of
    the bot's own folder in the jail (``WORK_FOLDER``); ``uid`` is the user to switch to inside
    (needed when we are root, see the module docstring)."""
    flags = [bwrap, *namespace_flags(), *system_binds()]
    # A private /tmp any user may write to, as on the host (it is the bot's alone).
    flags += ["--perms", "1777", "--size", str(policy.tmp_bytes), "--tmpfs", "/tmp"]
    read_only = [*python_paths(), *policy.read_only_paths]
    if cwd != workdir and not _inside(cwd, [BOT_FOLDER]):  # (the bot's folder is bound below)
        read_only.append(cwd)
    made: set[str] = {"/", "/tmp"}
    bound: list[str] = []
    for path in _outermost(read_only):
        flags += _parent_dirs(path, made, bound)
        if uid is not None and _closed_to_others(path):
            # The bot runs as a user of its own, which could not enter this folder: show it as
            # an open folder holding the same files (each keeps its own permissions).
            made.add(path)
            flags += ["--perms", "0755", "--dir", path]
            for entry in sorted(os.listdir(path)):
                inner = os.path.join(path, entry)
                flags += ["--ro-bind", inner, inner]
                bound.append(inner)
        else:
            flags += ["--ro-bind", path, path]
            bound.append(path)
    # The bot's folder is a tmpfs of its own size: its disk quota. Nothing in it reaches the
    # host's disk, and it vanishes with the jail.
    system = [name for name in SYSTEM_PATHS if os.path.isdir(name) and not os.path.islink(name)]
    flags += _covers(policy.hidden_paths, [*system, *bound])
    size = str(policy.limits.disk_bytes or 1024 * GiB)
    flags += [*_parent_dirs(workdir, made, bound), "--perms", "0700", "--size", size, "--tmpfs", workdir]
    owned = [workdir]
    if policy.bot_folder is not None:
        flags += ["--ro-bind", policy.bot_folder, BOT_FOLDER]
    if policy.build_from is not None:
        flags += ["--ro-bind", policy.build_from, SUBMISSION_FOLDER]
        flags += ["--perms", "0700", "--size", size, "--tmpfs", BOT_FOLDER]
        owned.append(BOT_FOLDER)
    if policy.toolchain_cache is not None:
        flags += ["--ro-bind", policy.toolchain_cache, TOOLCHAIN_CACHE_FOLDER]
    if policy.output_folder is not None:
        flags += ["--bind", policy.output_folder, OUTPUT_FOLDER]
    if policy.unix_socket is not None:
        socket = os.path.abspath(policy.unix_socket)
        flags += [*_parent_dirs(JAIL_SOCKET, made, bound), "--bind", socket, JAIL_SOCKET]
    if uid is None:
        return [*flags, "--chdir", cwd, "--", *command]
    flags += ["--setenv", "KINGMAKER_JAIL_UID", str(uid), "--setenv", "KINGMAKER_JAIL_OWNED", ":".join(owned)]
    flags += ["--setenv", "KINGMAKER_JAIL_CWD", cwd]
    return [*flags, "--", sys.executable, "-I", "-S", "-c", DROP_TO_UID, *command]


def flags_through_descriptor(command: Sequence[str]) -> tuple[list[str], int]:
    """A bwrap command line whose flags (all before ``--``) are read from a descriptor (``--args
    FD``), and that descriptor (the caller passes it on, then closes it). The jail's PID 1 is a
    copy of bwrap, so its ``/proc/1/cmdline`` would otherwise name every host path the flags bind."""
    end = command.index("--")
    descriptor = os.memfd_create("kingmaker-jail-flags")
    os.write(descriptor, b"".join(os.fsencode(flag) + b"\0" for flag in command[1:end]))
    os.lseek(descriptor, 0, os.SEEK_SET)
    return [command[0], "--args", str(descriptor), *command[end:]], descriptor


def _covers(hidden: Sequence[str], bound: Sequence[str]) -> list[str]:
    """Flags that cover each hidden path a bound folder would show: an empty read-only folder over
    a folder, an empty file over a file. A folder is bound as named but shows its target's
    contents, so a hidden path is looked for both ways. Paths the jail does not show need
    nothing: they are simply not there."""
    flags: list[str] = []
    covered: set[str] = set()
    # Folders first: what lies inside a covered folder is gone with it.
    for secret in sorted(hidden, key=lambda path: not os.path.isdir(path)):
        for in_jail in _where_shown(secret, bound):
            if _inside(in_jail, sorted(covered)):
                continue
            covered.add(in_jail)
            if os.path.isdir(secret):
                flags += ["--perms", "0555", "--size", "4096", "--tmpfs", in_jail, "--remount-ro", in_jail]
            else:
                flags += ["--ro-bind", "/dev/null", in_jail]
    return flags


def _where_shown(secret: str, bound: Sequence[str]) -> set[str]:
    """The paths at which the jail would show ``secret`` through the folders ``bound``."""
    if not os.path.lexists(secret):
        return set()
    found: set[str] = set()
    real = os.path.realpath(secret)
    for folder in bound:
        for named in {os.path.abspath(secret), real}:
            if _inside(named, [folder]):
                found.add(named)
        target = os.path.realpath(folder)
        if _inside(real, [target]):
            found.add(os.path.normpath(os.path.join(folder, os.path.relpath(real, target))))
    return found


def _closed_to_others(path: str) -> bool:
    """A folder another user may not enter (a checkout or test folder of mode 0700)."""
    try:
        return os.path.isdir(path) and not os.stat(path).st_mode & 0o001
    except OSError:
        return False


def _inside(path: str, folders: Sequence[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


def _outermost(paths: Sequence[str]) -> list[str]:
    """The absolute paths, without those inside another one (binding the outer one covers them),
    and without those the system binds already cover."""
    chosen: list[str] = []
    system = [name for name in SYSTEM_PATHS if os.path.isdir(name)]
    for path in sorted({os.path.abspath(path) for path in paths}):
        if not _inside(path, [*chosen, *system]):
            chosen.append(path)
    return chosen


def _parent_dirs(path: str, made: set[str], bound: Sequence[str]) -> list[str]:
    """Create a bound path's parents as world-readable folders: bwrap would make them 0700, and
    a bot switched to its own user could not walk through them. Parents inside an already bound
    (read-only) folder exist there and are left alone."""
    flags: list[str] = []
    for parent in (str(parent) for parent in reversed(Path(path).parents)):
        if parent not in made and not _inside(parent, bound):
            made.add(parent)
            flags += ["--perms", "0755", "--dir", parent]
    return flags
