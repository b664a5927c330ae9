"""A bot's run folder is bounded and counted against its memory limit (issue 43, finding 2): the
copy of its built folder the jail shows at ``/bot`` is in memory (the run folder is on
``/dev/shm``), so it keeps its files' holes and counts at its apparent size (a sparse file at its
full length) against the bot's memory limit, whose cgroup keeps what is left. Before, each
running process of a bot was a copy of its built folder in ``/dev/shm``, holes made memory,
charged to no bot."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sandbox_helpers import needs_jail

from kingmaker.server.jail.launcher import BOT_MEMORY_LEFT, BotProcess, LaunchError
from kingmaker.server.jail.sandbox import Limits, MiB, SandboxPolicy

from support import PYTHON

pytestmark = needs_jail

SLEEPER = "import time\ntime.sleep(60)\n"


def built_folder(root: Path, sparse_bytes: int) -> Path:
    """A built folder as the store keeps it: a bot that waits, beside a sparse file."""
    folder = root / "built"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(SLEEPER)
    with (folder / "hollow").open("wb") as hollow:
        hollow.truncate(sparse_bytes)
    for path in (root, folder):
        path.chmod(0o755)
    return folder


def memory_limit(process: BotProcess) -> int | None:
    """The memory limit of the bot's cgroup, None where it has none."""
    if process.cgroup is None:
        return None
    for folder in process.cgroup.folders:
        for name in ("memory.max", "memory.limit_in_bytes"):
            if (folder / name).exists():
                return int((folder / name).read_text())
    return None


def test_a_bots_built_folder_is_copied_with_its_holes_and_counts_against_its_memory(tmp_path: Path) -> None:
    folder = built_folder(tmp_path / "store", 300 * MiB)
    policy = SandboxPolicy(limits=Limits(bot_memory_bytes=1024 * MiB), bot_folder=str(folder))

    async def started() -> tuple[int, int, int | None]:
        process = await BotProcess.start((PYTHON, "/bot/bot.py"), {}, sandbox=policy)
        try:
            assert process.workdir is not None
            copy = process.workdir / "bot" / "hollow"
            return copy.stat().st_size, copy.stat().st_blocks * 512, memory_limit(process)
        finally:
            await process.stop(grace=0)

    size, occupied, limit = asyncio.run(started())
    assert size == 300 * MiB and occupied < MiB  # the copy in /dev/shm keeps its holes
    if limit is None:
        pytest.skip("this machine gives bots no memory cgroup: the copy is bounded, not counted")
    left = (1024 - 300) * MiB - len(SLEEPER)  # (the kernel keeps a limit in whole pages)
    assert left - 4096 <= limit <= left


def test_a_built_folder_past_the_bots_memory_limit_does_not_start(tmp_path: Path) -> None:
    folder = built_folder(tmp_path / "store", 900 * MiB)
    policy = SandboxPolicy(limits=Limits(bot_memory_bytes=1024 * MiB), bot_folder=str(folder))
    expected = (
        r"its built folder does not fit its memory limit \(1024 MiB, of which its copy in the run "
        rf"folder may take all but {BOT_MEMORY_LEFT // MiB} MiB\): it holds files adding up to more than"
    )
    with pytest.raises(LaunchError, match=expected):
        asyncio.run(BotProcess.start((PYTHON, "/bot/bot.py"), {}, sandbox=policy))
