"""Helpers for the sandbox tests: run one bot to its end under a policy, read what it reported."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from kingmaker.server.jail.launcher import BotProcess, SandboxPolicy
from kingmaker.server.jail.sandbox import bubblewrap

from support import PYTHON, REPO

HOSTILE = REPO / "sample_bots" / "hostile"


def hostile(name: str, *arguments: object) -> tuple[str, ...]:
    """The command that runs a hostile sample bot."""
    return (PYTHON, str(HOSTILE / name), *(str(argument) for argument in arguments))


def outcomes(stderr: str) -> list[str]:
    """The ``hostile: ...`` lines a hostile bot reported."""
    prefix = "hostile: "
    return [line[len(prefix) :] for line in stderr.splitlines() if line.startswith(prefix)]


@dataclass(frozen=True)
class Finished:
    returncode: int | None
    exit_signal: object
    stderr: str
    jailed: bool
    limit_events: dict[str, int]
    """How often each whole-bot (cgroup) limit was hit: ``oom_kill``, ``pids_max``."""

    @property
    def outcomes(self) -> list[str]:
        return outcomes(self.stderr)


def run_to_end(
    command: Sequence[str],
    policy: SandboxPolicy,
    environment: Mapping[str, str] | None = None,
    temp_root: Path | None = None,
) -> Finished:
    """Start the bot (its folders in ``temp_root``, a server's run folder), let it finish by
    itself (a contained bot does, well within 60 s), stop it."""

    async def play() -> Finished:
        process = await BotProcess.start(command, environment or {}, sandbox=policy, temp_root=temp_root)
        try:
            await process.exited(within=60)
        finally:
            await process.stop(grace=0)
        finished = Finished(
            process.returncode,
            process.exit_signal,
            process.stderr_tail(),
            process.jailed,
            process.limit_events,
        )
        process.discard_logs()
        return finished

    return asyncio.run(play())


async def wait_for(condition: Callable[[], object], what: str, within: float = 20.0) -> None:
    """Poll a condition (a callable) until it holds; fail the test if it never does."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        if loop.time() > deadline:
            pytest.fail(f"never happened: {what}")
        await asyncio.sleep(0.05)


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


needs_jail = pytest.mark.skipif(not bubblewrap().usable, reason=f"bubblewrap unusable: {bubblewrap().reason}")
