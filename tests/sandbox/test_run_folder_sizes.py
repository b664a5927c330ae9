"""A bot's run folder is bounded by its disk limit (issue 43, finding 2): the copy of its built
folder the jail shows at ``/bot`` counts at its apparent size (a sparse file at its full length)
and the bot's own folder has what is left. Before, each running process of a bot was a copy of
its built folder in ``/dev/shm``, holes made memory, charged to no bot."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox_helpers import needs_jail, run_to_end

from kingmaker.server.jail.launcher import LaunchError
from kingmaker.server.jail.sandbox import Limits, MiB, SandboxPolicy

from support import PYTHON

pytestmark = needs_jail


def built_folder(root: Path, sparse_bytes: int) -> Path:
    """A built folder as the store keeps it: a bot that prints its own folder's free room."""
    folder = root / "built"
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(
        "import os, sys\nroom = os.statvfs(os.environ['HOME'])\n"
        "print('room', room.f_blocks * room.f_frsize, file=sys.stderr)\n"
    )
    with (folder / "hollow").open("wb") as hollow:
        hollow.truncate(sparse_bytes)
    for path in (root, folder):
        path.chmod(0o755)
    return folder


def test_a_bots_built_folder_counts_against_its_disk_limit_at_its_full_length(tmp_path: Path) -> None:
    folder = built_folder(tmp_path / "store", 5 * MiB)
    limits = Limits(disk_bytes=8 * MiB)
    finished = run_to_end((PYTHON, "/bot/bot.py"), SandboxPolicy(limits=limits, bot_folder=str(folder)))
    assert finished.returncode == 0, finished.stderr
    room = int(finished.stderr.split("room ")[1].split()[0])
    assert room <= 3 * MiB  # its own folder has what the built folder leaves of its 8 MiB


def test_a_built_folder_past_the_bots_disk_limit_does_not_start(tmp_path: Path) -> None:
    folder = built_folder(tmp_path / "store", 12 * MiB)
    policy = SandboxPolicy(limits=Limits(disk_bytes=8 * MiB), bot_folder=str(folder))
    with pytest.raises(LaunchError, match=r"its built folder does not fit its disk limit \(8 MiB"):
        run_to_end((PYTHON, "/bot/bot.py"), policy)
