"""Every process a launched bot runs is scheduled as batch work (``SCHED_BATCH``), in the jail
and out of it, so that a bot woken by its request does not preempt the referee that sent it; its
share of the CPU is what its nice value and weight give, as before."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from kingmaker.server.jail.bot_cpu import _descendants
from kingmaker.server.jail.launcher import BotProcess
from kingmaker.server.jail.sandbox import SandboxPolicy, bubblewrap

pytestmark = pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="Linux's scheduling policies")

JAILS = [False, pytest.param(True, marks=pytest.mark.skipif(not bubblewrap().usable, reason="no jail here"))]


def _tree_with_sleep(pid: int) -> list[int]:
    """The process tree under ``pid`` once the bot's own ``sleep`` is in it (the jail starts it)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        tree = _descendants(pid)
        commands = []
        for member in tree:
            try:
                commands.append(Path(f"/proc/{member}/comm").read_text().strip())
            except OSError:
                continue
        if "sleep" in commands:
            return tree
        time.sleep(0.05)
    raise AssertionError(f"the bot's sleep never started under {pid}")


@pytest.mark.parametrize("jail", JAILS)
def test_a_bots_processes_are_batch_scheduled_and_the_server_is_not(tmp_path: Path, jail: bool) -> None:
    async def policies() -> list[int]:
        policy = SandboxPolicy(isolate=jail, allow_unjailed=not jail)
        process = await BotProcess.start(["sleep", "60"], {}, sandbox=policy, temp_root=tmp_path)
        try:
            tree = await asyncio.to_thread(_tree_with_sleep, process.process.pid)
            return [os.sched_getscheduler(member) for member in tree]
        finally:
            await process.stop(grace=0)

    found = asyncio.run(policies())
    assert found and set(found) == {os.SCHED_BATCH}, found
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the server's own stays interactive
