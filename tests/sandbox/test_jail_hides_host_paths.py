"""What a jailed bot learns of the host's paths from ``/proc`` (issue 32, item 2): the server's home
path, read there, was what the archive recipes needed.

The bot is set up as a submitted version plays: its built folder in the home's build store (the
jail shows a copy at ``/bot``); the server's socket and the bot's folders in the server's run
folder. A build step is set up as the server builds: the unpacked submission and the folder it
fills in the run folder. Neither names the home, the run folder, the socket's folder, the test's
folder or the server's working directory in any of the files it reads. The one documented
exception (docs/security.md): the Python installation folders the jail shows (the interpreter,
its virtualenv, the kingmaker packages) are shown where they are on the host, and so named; they
hold no secret and are the same for every bot. In a checkout they lie inside the server's working
directory, so that directory is looked for only outside them.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import needs_jail, outcomes, run_to_end

from kingmaker.server.building import jailed_unpack
from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.builds import build_folder
from kingmaker.server.jail import run_folder as run_folder_module
from kingmaker.server.jail.launcher import SandboxPolicy
from kingmaker.server.jail.run_folder import make_run_folder
from kingmaker.server.jail.sandbox import JAIL_SOCKET, python_paths

from support import PYTHON

pytestmark = needs_jail

READ = (
    "/proc/self/mountinfo",
    "/proc/self/mounts",
    "/proc/1/cmdline",
    "/proc/1/environ",
    "/proc/self/environ",
    "/proc/*/fd",  # (where every open file of every process it sees points: its stderr, a step's answer)
)

# What to look for comes in a file beside the reader: the environment and command line are read.
READER = """
import glob, json, os, sys

def read(name):
    if name == "/proc/*/fd":
        found = []
        for link in glob.glob("/proc/[0-9]*/fd/*"):
            try:
                found.append(os.readlink(link))
            except OSError:  # (another user's process, or closed meanwhile)
                pass
        return " ".join(found)
    return open(name, "rb").read().replace(b"\\0", b" ").decode(errors="replace")

here = os.path.dirname(os.path.abspath(__file__))
wanted = json.load(open(os.path.join(here, "look_for.json")))
for name in wanted["read"]:
    try:
        text = read(name)
    except PermissionError:  # (the jail's first process is root's, the bot its own user)
        print(f"hostile: {name} 0 unreadable", file=sys.stderr)
        continue
    for allowed in sorted(wanted["python"], key=len, reverse=True):
        text = text.replace(allowed, "<python>")
    named = [path for path in wanted["paths"] if path in text] or ["nothing"]
    print(f"hostile: {name} {len(text)} names {' '.join(named)}", file=sys.stderr)
mounts = open("/proc/self/mountinfo").read()
print("hostile: socket " + ("shown" if JAIL_SOCKET in mounts else "absent"), file=sys.stderr)
print("hostile: bot " + ("shown" if " /bot " in mounts else "absent"), file=sys.stderr)
""".replace("JAIL_SOCKET", repr(JAIL_SOCKET))


@pytest.fixture
def run_folder() -> Iterator[Path]:
    folder = make_run_folder()
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def reader_folder(folder: Path, looked_for: list[Path]) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(READER)
    wanted = {"read": READ, "paths": list(map(str, looked_for)), "python": python_paths()}
    (folder / "look_for.json").write_text(json.dumps(wanted))
    return folder


def looked_for(tmp_path: Path, home: Path, run_folder: Path) -> list[Path]:
    """The home, the run folder (where the socket is), the test's folder, the server's cwd."""
    return [home, run_folder, run_folder / "arena.sock", tmp_path, Path.cwd()]


def read_back(stderr: str) -> dict[str, str]:
    found = dict(line.split(" ", 1) for line in outcomes(stderr))
    assert set(found) == {*READ, "socket", "bot"}, stderr
    for name in READ:
        size, named = found[name].split(" ", 1)
        assert int(size) > 0 or named == "unreadable", f"{name} was read empty"
        found[name] = named
    return found


def names_nothing(found: dict[str, str]) -> dict[str, str]:
    """What was read, the first process's environment counted as naming nothing where the bot
    may not read it at all (a root server's jail: its first process stays root's)."""
    if found.get("/proc/1/environ") == "unreadable":
        return {**found, "/proc/1/environ": "names nothing"}
    return found


def test_the_run_folder_is_on_a_tmpfs_where_mounts_show_it_by_its_path_inside(run_folder: Path) -> None:
    assert run_folder.parent == Path("/dev/shm"), "this machine has a writable tmpfs at /dev/shm"


def test_without_room_on_dev_shm_the_run_folder_is_made_in_the_temporary_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(run_folder_module, "SHARED_MEMORY_NEEDED", 1 << 62)  # (a container's 64 MiB)
    folder = make_run_folder()
    try:
        assert folder.parent == Path(tempfile.gettempdir()) and (folder / "pid").exists()
    finally:
        shutil.rmtree(folder)


def test_a_managed_bots_proc_names_neither_the_home_nor_the_run_folder(
    tmp_path: Path, run_folder: Path
) -> None:
    home = tmp_path / "server-home"
    built = reader_folder(home / "builds" / ("0" * 64), looked_for(tmp_path, home, run_folder))
    for folder in (tmp_path, home, home / "builds", built):
        os.chmod(folder, 0o755)
    socket = run_folder / "arena.sock"
    socket.touch()
    policy = SandboxPolicy(bot_folder=str(built), hidden_paths=(str(home),), unix_socket=str(socket))
    environment = {"KINGMAKER_SERVER": policy.server_address}
    finished = run_to_end((PYTHON, "/bot/bot.py"), policy, environment, temp_root=run_folder)
    assert finished.jailed
    found = names_nothing(read_back(finished.stderr))
    expected = {**dict.fromkeys(READ, "names nothing"), "socket": "shown", "bot": "shown"}
    assert found == expected, finished.stderr


def test_a_build_steps_proc_names_neither_the_home_nor_the_run_folder(
    tmp_path: Path, run_folder: Path
) -> None:
    home = tmp_path / "server-home"
    submission = reader_folder(tmp_path / "submission", looked_for(tmp_path, home, run_folder))
    (submission / "kingmaker.toml").write_text('run = "./bot.py"\nbuild = "python3 bot.py"\n')
    store = BuildStore(home / "builds")
    result = asyncio.run(build_folder(submission, store, SandboxPolicy(), temp_root=run_folder))
    assert result.ok, result.reason
    found = names_nothing(read_back(result.log))
    assert found == {**dict.fromkeys(READ, "names nothing"), "socket": "absent", "bot": "shown"}, result.log


def test_an_unpacking_step_reads_its_archive_from_memory_not_from_the_home(tmp_path: Path) -> None:
    """The archive on an unpacking step's stdin: its ``/proc/self/fd/0`` names no blob path."""
    blob = tmp_path / "server-home" / "blobs" / ("a" * 64)
    blob.parent.mkdir(parents=True)
    blob.write_bytes(b"archive bytes" * 1000)

    async def read() -> tuple[str, bytes]:
        async with jailed_unpack._opened(blob) as stdin:
            return os.readlink(f"/proc/self/fd/{stdin.fileno()}"), stdin.read()

    named, read_back = asyncio.run(read())
    assert named.startswith("/memfd:")
    assert read_back == blob.read_bytes()
