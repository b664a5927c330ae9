"""A manifest's build command is the author's, and private (issue 43, finding 6): no process of
the host shows it in its arguments (``ps``), neither the jail's step nor the shell that runs it.
Before, it was the step's last argument and the shell's ``-c`` argument."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.builds import BuildResult, build_folder
from kingmaker.server.jail.sandbox import SandboxPolicy, bubblewrap

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="bubblewrap does not work here")

MARKER = "private-recipe-4f1c"


def every_command_line() -> list[bytes]:
    found = []
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            found.append(path.read_bytes())
    return found


def test_no_host_process_shows_a_build_command_in_its_arguments(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    build = f"sleep 4; touch x; chmod +x x # {MARKER}"
    (folder / "kingmaker.toml").write_text(f'run = "./x"\nbuild = "{build}"\n')

    async def build_and_watch() -> tuple[BuildResult, list[bytes]]:
        building = asyncio.create_task(build_folder(folder, BuildStore(tmp_path / "builds"), SandboxPolicy()))
        seen: list[bytes] = []
        while not building.done():
            seen += await asyncio.to_thread(every_command_line)
            await asyncio.sleep(0.05)
        return await building, seen

    result, seen = asyncio.run(build_and_watch())
    assert result.ok, result.reason
    assert MARKER in result.log  # (the author's own log shows it)
    assert b"sleep\x004\x00" in seen  # the build was watched while its command ran
    assert [line for line in seen if MARKER.encode() in line] == []
