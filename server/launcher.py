"""Starting and stopping bot processes.

Each bot runs in a process group of its own, so stopping it kills everything it started; with
a scrubbed environment (only what a program needs to run, plus the server address and its
token); with its stderr kept in a file whose tail explains a crash; and with resource limits
set before it runs (see ``Limits``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# The only variables a bot inherits from the server's environment.
INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "PYTHONPATH", "VIRTUAL_ENV", "NODE_PATH", "SYSTEMROOT")


@dataclass(frozen=True)
class Limits:
    """Resource limits applied to every bot process (0 means no limit of that kind)."""

    cpu_seconds: int = 0
    memory_bytes: int = 0
    processes: int = 0
    open_files: int = 1024
    file_bytes: int = 256 * 1024 * 1024

    def apply(self) -> None:
        """Runs in the child between fork and exec."""
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        for kind, value in (
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_FSIZE, self.file_bytes),
        ):
            if value:
                resource.setrlimit(kind, (value, value))


class LaunchError(RuntimeError):
    """The command could not be started at all (not found, not executable)."""


class BotProcess:
    """One running bot command."""

    def __init__(self, process: asyncio.subprocess.Process, stderr_path: Path) -> None:
        self.process = process
        self.stderr_path = stderr_path

    @classmethod
    async def start(
        cls,
        command: Sequence[str],
        environment: Mapping[str, str],
        cwd: str | None = None,
        limits: Limits | None = None,
    ) -> BotProcess:
        if not command:
            raise LaunchError("the bot has no command")
        env = {name: os.environ[name] for name in INHERITED if name in os.environ}
        env.update(environment)
        # The file outlives this call: the bot writes to it, and its tail explains a crash later.
        stderr_file = tempfile.NamedTemporaryFile(  # noqa: SIM115
            prefix="kingmaker-bot-", suffix=".stderr", delete=False
        )
        chosen = limits or Limits()
        try:
            process = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=stderr_file,
                cwd=cwd,
                env=env,
                start_new_session=True,
                preexec_fn=chosen.apply,
            )
        except OSError as error:
            stderr_file.close()
            Path(stderr_file.name).unlink(missing_ok=True)
            raise LaunchError(f"cannot start {command[0]!r}: {error.strerror or error}") from None
        finally:
            stderr_file.close()
        return cls(process, Path(stderr_file.name))

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def exited(self, within: float = 0.5) -> bool:
        """True if the process has exited, waiting up to ``within`` seconds for it to do so."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), within)
        return self.process.returncode is not None

    def stderr_tail(self, limit: int = 2000) -> str:
        try:
            with self.stderr_path.open("rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - limit))
                return handle.read().decode(errors="replace")
        except OSError:
            return ""

    async def stop(self, grace: float = 2.0) -> None:
        """Give the bot ``grace`` seconds to leave by itself (its stream has ended), then SIGTERM
        its whole process group, then SIGKILL it; always reaps the process."""
        await self.exited(within=grace)
        for sig, wait in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
            if self.process.returncode is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), wait)
        # The leader may be gone while children it started linger in its group.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)

    def discard_logs(self) -> None:
        self.stderr_path.unlink(missing_ok=True)
