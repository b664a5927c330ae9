"""Starting and stopping bot processes.

Each bot runs in a process group of its own, so stopping it kills everything it started; with
a scrubbed environment (only what a program needs to run, plus the server address and its
token); in a fresh temporary working directory of its own (also its HOME and TMPDIR), removed
when it stops; with its stderr kept in a file whose tail explains a crash; with resource limits
set before it runs; under a root server as a user of its own; in cgroups that bound the whole
bot (memory, processes, CPU share) where the machine has them; and, when its ``SandboxPolicy``
asks for it, in a namespace jail with no network (see ``kingmaker.server.jail.sandbox``) whose
paths name no host folder (its own folder is ``WORK_FOLDER``, the socket ``JAIL_SOCKET``, a built
folder a copy in its run folder, see ``_copy_built_folder``). Secure by
default: a policy that asks for the jail where none works is refused (``JailUnavailable``)
unless it allows running unjailed. docs/security.md has the threat model.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from kingmaker.server.jail.bot_cpu import ProcessTreeClock, cpu_clock, tree_cpu_seconds
from kingmaker.server.jail.bot_folders import bot_folders
from kingmaker.server.jail.bot_users import BOT_UIDS, closed_to_others, processes_rlimit
from kingmaker.server.jail.cgroups import BotCgroup, cgroup_support
from kingmaker.server.jail.folder_bound import FolderBound, FolderTooBig
from kingmaker.server.jail.in_child import InChild, nice_for_weight
from kingmaker.server.jail.memory_files import memory_file
from kingmaker.server.jail.no_follow import FolderRefused, copy_tree
from kingmaker.server.jail.sandbox import (
    BOT_FOLDER,
    HOW_TO_GET_A_JAIL,
    JAIL_SOCKET,
    WORK_FOLDER,
    Limits,
    MiB,
    SandboxPolicy,
    bubblewrap,
    bubblewrap_command,
    flags_through_descriptor,
    running_as_root,
)

__all__ = [
    "BotProcess",
    "JailUnavailable",
    "LaunchError",
    "Limits",
    "SandboxPolicy",
    "confinement",
    "jail_refusal",
]

log = logging.getLogger("kingmaker.server.jail.launcher")

# The only variables a bot inherits from the server's environment (HOME is replaced).
INHERITED = ("PATH", "LANG", "LC_ALL", "TZ", "PYTHONPATH", "VIRTUAL_ENV", "NODE_PATH", "SYSTEMROOT")

_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning(message)


class LaunchError(RuntimeError):
    """The command could not be started at all (not found, not executable)."""


class JailUnavailable(LaunchError):
    """The policy asks for the jail, none works here, and running unjailed was not allowed."""


def jail_refusal(policy: SandboxPolicy) -> str | None:
    """The one-line reason a bot launched under this policy is refused here, or None."""
    if not policy.isolate or policy.allow_unjailed:
        return None
    status = bubblewrap()
    if status.usable:
        return None
    return f"no jail for managed bots here ({status.reason}): {HOW_TO_GET_A_JAIL}"


def confinement(policy: SandboxPolicy) -> str:
    """One line: how a bot launched under this policy runs on this machine now."""
    if not policy.isolate:
        return "UNJAILED: trusted code, run without the jail by the server's configuration"
    status = bubblewrap()
    if not status.usable:
        if policy.allow_unjailed:
            return (
                "UNJAILED: the server allows bots without a jail (--allow-unjailed) "
                f"and has none ({status.reason})"
            )
        return f"refused: no jail here ({status.reason}): {HOW_TO_GET_A_JAIL}"
    user = "a user of its own" if running_as_root() else "the server's user in a user namespace"
    return f"jailed (bubblewrap: no network, own PID namespace, {user}; {cgroup_support().describe()})"


class BotProcess:
    """One running bot command."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        stderr_file: IO[bytes],
        workdir: Path | None = None,
        uid: int | None = None,
        jailed: bool = False,
        cgroup: BotCgroup | None = None,
    ) -> None:
        self.process = process
        self.stderr_file = stderr_file
        """Its stderr: a file in memory (``memory_file``), kept until ``discard_logs``."""
        self.workdir = workdir
        """The bot's own directory, removed when it stops."""
        self.uid = uid
        """The user id it runs as, when the server (root) gave it one of its own."""
        self.jailed = jailed
        """True when it runs under bubblewrap."""
        self.cgroup = cgroup
        """Its control groups (whole-bot limits), where the machine has them."""
        self.limit_events: dict[str, int] = {}
        """How often each whole-bot limit was hit (``BotCgroup.events``), read when it stopped."""
        self._stopping: asyncio.Future[None] | None = None
        """The one stop under way: a second caller waits for it instead of stopping again."""

    @classmethod
    async def start(
        cls,
        command: Sequence[str],
        environment: Mapping[str, str],
        cwd: str | None = None,
        limits: Limits | None = None,
        sandbox: SandboxPolicy | None = None,
        temp_root: Path | None = None,
        stdout: int | IO[bytes] = asyncio.subprocess.DEVNULL,
        stdin: int | IO[bytes] = asyncio.subprocess.DEVNULL,
    ) -> BotProcess:
        """Start ``command`` in ``cwd`` (default: its own working directory) with ``environment``
        added to the scrubbed one. ``limits`` alone gives the limits without a jail; a
        ``sandbox`` policy carries its own limits and may ask for the jail. A ``cwd`` inside the
        policy's ``bot_folder`` is, in the jail, the same place under ``BOT_FOLDER``. ``stdout``:
        where the program's output goes; ``stdin``: what it reads (an archive, opened here, for a
        step that unpacks it in the jail)."""
        if not command:
            raise LaunchError("the bot has no command")
        if cwd is not None and not os.path.isdir(cwd):
            raise LaunchError(f"cannot start {command[0]!r}: its working directory {cwd!r} does not exist")
        _check_program(command[0], cwd)
        if limits is not None and sandbox is not None:
            raise ValueError("give the limits inside the sandbox policy, not beside it")
        policy = sandbox or SandboxPolicy(limits=limits or Limits(), isolate=False)
        policy = dataclasses.replace(policy, read_only_paths=(*policy.read_only_paths, *bot_folders(command)))
        bwrap = _jail_for(policy)
        workdir = Path(tempfile.mkdtemp(prefix="kingmaker-bot-", dir=temp_root))
        in_jail = _jail_path(cwd, policy) if bwrap is not None else cwd
        shown = policy  # (what the jail binds: a built folder's copy in the bot's run folder)
        memory = policy.limits.bot_memory_bytes
        if bwrap is not None and policy.bot_folder is not None:
            copy, memory = await _copy_built_folder(policy.bot_folder, workdir, memory)
            shown = dataclasses.replace(policy, bot_folder=copy)
        # A root server gives every bot a user of its own, jailed or not: its processes count
        # for RLIMIT_NPROC alone, and it cannot read or signal the server or another bot.
        uid = BOT_UIDS.take() if running_as_root() and (bwrap or _others_can_run(command, cwd)) else None
        start_in = cwd or str(workdir)
        if uid is not None:
            os.chown(workdir, uid, uid)
            if policy.output_folder is not None:  # (an empty folder the server just made)
                os.chown(policy.output_folder, uid, uid, follow_symlinks=False)
            if policy.unix_socket is not None:
                # Another user must be able to connect; a connection still needs a bot token,
                # exactly as on a TCP port.
                os.chmod(policy.unix_socket, 0o666)
        if bwrap is None:
            argv = list(command)
        else:
            argv = bubblewrap_command(bwrap, command, shown, WORK_FOLDER, in_jail or WORK_FOLDER, uid)
        processes = processes_rlimit(policy.limits, own_uid=uid is not None)
        limits_in_child = dataclasses.replace(policy.limits, processes=processes)
        limits = policy.limits
        cgroup = BotCgroup.create(memory, limits.bot_processes, limits.cpu_cores, limits.cpu_weight)
        weighed = cgroup is not None and cgroup.weighs_cpu
        niceness = 0 if weighed else nice_for_weight(limits.cpu_weight)
        in_child = InChild(limits_in_child, cgroup, uid if bwrap is None else None, niceness)
        env = {name: os.environ[name] for name in INHERITED if name in os.environ}
        own_folder = str(workdir) if bwrap is None else WORK_FOLDER
        env.update(HOME=own_folder, TMPDIR=own_folder)
        env.update(_as_the_jail_names_it(environment, policy) if bwrap is not None else environment)
        # The file outlives this call: the bot writes to it, and its tail explains a crash later.
        stderr_file = memory_file("kingmaker-bot-stderr")
        flags: int | None = None  # (bwrap's flags, read from a descriptor: see the function)
        if bwrap is not None:
            argv, flags = flags_through_descriptor(argv)
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=stdin,
                stdout=stdout,
                stderr=stderr_file,
                cwd=str(workdir) if bwrap is not None else start_in,
                env=env,
                start_new_session=True,
                preexec_fn=in_child.run,
                pass_fds=() if flags is None else (flags,),
            )
        except (OSError, subprocess.SubprocessError) as error:
            stderr_file.close()
            _remove_tree(workdir)
            if cgroup is not None:
                cgroup.remove()
            if uid is not None:
                BOT_UIDS.give_back(uid)
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            raise LaunchError(f"cannot start {command[0]!r}: {reason}") from None
        finally:
            if flags is not None:
                os.close(flags)
        return cls(process, stderr_file, workdir, uid, jailed=bwrap is not None, cgroup=cgroup)

    @functools.cached_property
    def cpu_clock(self) -> ProcessTreeClock | None:
        """The CPU time of the bot's process tree (the clock charges it), where it can be read."""
        return cpu_clock(self.process.pid)

    def cpu_seconds(self) -> float:
        """CPU time its processes have used so far, the ended ones' too: its cgroup's count, or
        else ``/proc``'s for the tree (which misses a process whose parent ended unwaited)."""
        counted = self.cgroup.cpu_seconds() if self.cgroup is not None else None
        return counted if counted is not None else tree_cpu_seconds(self.process.pid)

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    @property
    def exit_signal(self) -> signal.Signals | None:
        """The signal that killed the bot (SIGXCPU: CPU limit, SIGKILL: stopped or hard limit).
        bwrap reports a jailed bot killed by signal N as exit code 128 + N, as shells do."""
        code = self.process.returncode
        if code is None:
            return None
        number = -code if code < 0 else code - 128 if self.jailed and code > 128 else 0
        try:
            return signal.Signals(number) if number else None
        except ValueError:
            return None

    def exit_description(self) -> str:
        """How the process ended, for a person: "exited with code 3", "was killed by SIGSEGV";
        "" while it runs."""
        if self.process.returncode is None:
            return ""
        killer = self.exit_signal
        if killer is not None:
            return f"was killed by {killer.name}"
        return f"exited with code {self.process.returncode}"

    async def exited(self, within: float = 0.5) -> bool:
        """True if the process has exited, waiting up to ``within`` seconds for it to do so."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), within)
        return self.process.returncode is not None

    def stderr_size(self) -> int:
        """How many bytes the bot has written on stderr so far (where a match's own part starts)."""
        try:
            return os.fstat(self.stderr_file.fileno()).st_size
        except (OSError, ValueError):  # (ValueError: discarded)
            return 0

    def stderr_since(self, offset: int, limit: int) -> tuple[str, int]:
        """What the bot wrote on stderr from ``offset`` on: its last ``limit`` bytes as text, and
        how many bytes it wrote in all."""
        end = self.stderr_size()
        try:
            start = max(offset, end - limit)
            text = os.pread(self.stderr_file.fileno(), max(0, min(limit, end - start)), start)
        except (OSError, ValueError):
            return "", 0
        return text.decode(errors="replace"), max(0, end - offset)

    def stderr_tail(self, limit: int = 2000) -> str:
        end = self.stderr_size()
        try:
            return os.pread(self.stderr_file.fileno(), limit, max(0, end - limit)).decode(errors="replace")
        except (OSError, ValueError):
            return ""

    async def stop(self, grace: float = 2.0) -> None:
        """Give the bot ``grace`` seconds to leave by itself (its stream has ended), then SIGTERM
        its whole process group, then SIGKILL it; always reaps the process.

        Stopping twice at once (a table's end retiring its bots while the server closes the
        roster) is one stop: the second caller waits for the first's. Two would give the bot's
        user id back twice, after another bot may have taken it, and race over its groups."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop(grace))
        # Shielded: a caller cancelled while it waits does not leave the bot half stopped.
        await asyncio.shield(self._stopping)

    async def _stop(self, grace: float) -> None:
        await self.exited(within=grace)
        for sig, wait in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
            if self.process.returncode is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), wait)
        # The leader may be gone while children it started linger in its group, or in a
        # session of their own (setsid): the cgroup, or else the bot's own user, finds them all.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.cgroup is not None:
            self.limit_events = self.cgroup.events()
            await asyncio.to_thread(self.cgroup.kill)
            await asyncio.to_thread(self.cgroup.remove)
            self.cgroup = None
        elif self.uid is not None and not self.jailed:  # (the jail's PID namespace did it)
            _kill_every_process_of(self.uid)
        if self.workdir is not None:
            _remove_tree(self.workdir)
        if self.uid is not None:
            BOT_UIDS.give_back(self.uid)

    def discard_logs(self) -> None:
        self.stderr_file.close()


async def _copy_built_folder(folder: str, workdir: Path, memory_bytes: int) -> tuple[str, int]:
    """A copy of a built folder in the bot's run folder, shown at ``BOT_FOLDER`` (a bind mount's
    source shows in the jail's ``/proc/self/mountinfo``; the store is under the server's home,
    the run folder on a tmpfs). Paid once per bot process. The copy is in memory, as the bot's
    tmpfs folders are, so it counts against the bot's memory limit, ``memory_bytes`` (0: none),
    at its apparent size (a sparse file at its full length; holes stay holes): the copy, and
    what is left for the bot's cgroup, at least ``BOT_MEMORY_LEFT``, or ``LaunchError``."""
    copy = workdir / "bot"
    bound = FolderBound(max(memory_bytes - BOT_MEMORY_LEFT, 1) if memory_bytes else 0, 0)
    try:
        size = await asyncio.to_thread(copy_tree, Path(folder), copy, bound)
    except FolderTooBig as error:
        _remove_tree(workdir)
        raise LaunchError(
            f"its built folder does not fit its memory limit ({memory_bytes / MiB:g} MiB, of which "
            f"its copy in the run folder may take all but {BOT_MEMORY_LEFT / MiB:g} MiB): it holds {error}"
        ) from None
    except (OSError, FolderRefused) as error:
        _remove_tree(workdir)
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise LaunchError(f"cannot copy its built folder into its run folder: {reason}") from None
    return str(copy), memory_bytes - size if memory_bytes else 0


BOT_MEMORY_LEFT = 256 * MiB
"""The least of its memory limit a bot keeps for itself beside the copy of its built folder (a
build's folder may be 1 GiB; a bot's memory limit is 2 GiB by default)."""


def _as_the_jail_names_it(environment: Mapping[str, str], policy: SandboxPolicy) -> dict[str, str]:
    """The bot's variables, the server's socket named where the jail shows it (``JAIL_SOCKET``)."""
    if policy.unix_socket is None:
        return dict(environment)
    host = policy.server_address
    return {name: f"unix:{JAIL_SOCKET}" if value == host else value for name, value in environment.items()}


def _jail_path(cwd: str | None, policy: SandboxPolicy) -> str | None:
    """Where ``cwd`` is in the jail: a folder inside the bot's built folder is under BOT_FOLDER."""
    folder = policy.bot_folder
    if cwd is None or folder is None:
        return cwd
    relative = os.path.relpath(os.path.realpath(cwd), os.path.realpath(folder))
    if relative == os.curdir:
        return BOT_FOLDER
    return cwd if relative.startswith(os.pardir) else os.path.join(BOT_FOLDER, relative)


def _others_can_run(command: Sequence[str], cwd: str | None) -> bool:
    """Whether a user of the bot's own could run this outside the jail (``closed_to_others``);
    where not, such a bot runs as the server's user, which is said loudly."""
    closed = closed_to_others(command, cwd)
    if closed is not None:
        folder, path = closed
        _warn_once(
            f"UNJAILED bots run as the server's user: {folder} (on the way to {path}) is "
            "closed to other users, so a user of the bot's own could not run it"
        )
    return closed is None


def _kill_every_process_of(uid: int) -> None:
    """SIGKILL every process of a bot's own user: what a cgroup would do, where there is none.
    A process of that user may signal them all, and ``kill(-1)`` spares only the caller: a
    short-lived fork of the server that becomes that user and does just that."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only makes system calls, then leaves
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _check_program(program: str, cwd: str | None) -> None:
    """Refuse, before anything starts, a program that cannot run: in the jail a failed exec would
    look like a bot that exited by itself, and the bot would be blamed for the server's set-up."""
    if "/" in program:
        path = program if os.path.isabs(program) or cwd is None else os.path.join(cwd, program)
        if os.path.isabs(program) or cwd is not None:
            if not os.path.isfile(path) or not os.access(path, os.X_OK):
                raise LaunchError(f"cannot start {program!r}: no such executable file")
            return
        # A relative path with no working directory of its own would run from a fresh empty folder.
        raise LaunchError(
            f"cannot start {program!r}: a relative path needs the bot's working directory "
            "(register the bot with an absolute path, or with its working directory)"
        )
    if shutil.which(program) is None:
        raise LaunchError(f"cannot start {program!r}: not found on the server's PATH")


def _jail_for(policy: SandboxPolicy) -> str | None:
    """The bwrap path when this policy wants the jail and bubblewrap works here; None when the
    bot may run unjailed (said loudly, once); ``JailUnavailable`` when it may not."""
    if not policy.isolate:
        _warn_once("UNJAILED: launched bots run without the jail, as trusted code (the jail is off)")
        return None
    refusal = jail_refusal(policy)
    if refusal is not None:
        raise JailUnavailable(refusal)
    status = bubblewrap()
    if not status.usable or status.path is None:
        _warn_once(
            f"UNJAILED: launched bots run without the jail (--allow-unjailed; {status.reason}): "
            "they reach the network and see this machine's processes and files"
        )
        return None
    return status.path


def _remove_tree(path: Path) -> None:
    """Remove a bot's directory, even where the bot took away its own write permission."""
    if not running_as_root():
        for folder, subfolders, _files in os.walk(path):
            for name in subfolders:
                inner = os.path.join(folder, name)
                if not os.path.islink(inner):
                    with contextlib.suppress(OSError):
                        os.chmod(inner, 0o700)
    shutil.rmtree(path, ignore_errors=True)
