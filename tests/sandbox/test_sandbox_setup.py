"""What every managed bot gets, jail or not: its own directory (removed after), a scrubbed
environment, its process group killed on stop; and how the jail is built, probed and given up."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import stat
import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from sandbox_helpers import processes_with, run_to_end, wait_for

from kingmaker.server.jail.bot_users import count_tasks_of_user, processes_rlimit
from kingmaker.server.jail.launcher import BotProcess, JailUnavailable, Limits, SandboxPolicy
from kingmaker.server.jail.sandbox import (
    WORK_FOLDER,
    bubblewrap,
    bubblewrap_command,
    code_paths,
)

from support import PYTHON

SHOW = (
    "import os, sys; "
    "print('hostile:', os.getcwd(), os.environ['HOME'], os.environ['TMPDIR'], "
    "os.environ.get('KINGMAKER_ADMIN_TOKEN'), os.environ.get('GIVEN'), file=sys.stderr)"
)


def test_a_bot_starts_in_its_own_directory_with_a_scrubbed_environment(
    isolate: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_ADMIN_TOKEN", "the server's secret")

    async def look() -> tuple[Path, str, bool]:
        policy = SandboxPolicy(isolate=isolate)
        process = await BotProcess.start((PYTHON, "-c", SHOW), {"GIVEN": "yes"}, sandbox=policy)
        assert process.workdir is not None
        assert process.workdir.is_dir() and stat.S_IMODE(process.workdir.stat().st_mode) == 0o700
        await process.exited(within=30)
        await process.stop(grace=0)
        seen = process.stderr_tail()
        process.discard_logs()
        return process.workdir, seen, process.workdir.exists()

    workdir, seen, still_there = asyncio.run(look())
    # In the jail its folder is at a path naming no host folder (its mountinfo shows mount points).
    own = WORK_FOLDER if isolate else workdir
    assert f"hostile: {own} {own} {own} None yes" in seen
    assert not still_there, "the directory is removed when the bot stops"


def test_stopping_a_bot_kills_the_children_in_its_process_group(isolate: bool) -> None:
    marker = f"child-{uuid.uuid4().hex}"
    child = f"import time; time.sleep(60)  # {marker}"
    spawner = (
        PYTHON,
        "-c",
        f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {child!r}]); "
        "print('hostile: started', file=sys.stderr, flush=True); time.sleep(60)",
    )

    async def spawn_and_stop() -> None:
        process = await BotProcess.start(spawner, {}, sandbox=SandboxPolicy(isolate=isolate))
        await wait_for(lambda: processes_with(marker), "the child started")
        await process.stop(grace=0)
        process.discard_logs()
        await wait_for(lambda: not processes_with(marker), "the child is gone", within=10)

    asyncio.run(spawn_and_stop())


def test_a_bots_processes_printing_at_once_never_write_over_each_others_lines(isolate: bool) -> None:
    # A bot's processes share its stderr and its offset: one that read the offset before
    # another's line moved it writes at the old place. Here one process plays both, moving the
    # shared offset back between its two lines, as the race does (four processes printing at
    # once under a CPU quota lost a line in about 1 run of 5 under load).
    stale_offset = (
        "import os; os.write(2, b'hostile: one\\n'); "
        "os.lseek(2, 0, os.SEEK_SET); os.write(2, b'hostile: two\\n')"
    )
    finished = run_to_end((PYTHON, "-c", stale_offset), SandboxPolicy(isolate=isolate))
    assert finished.outcomes == ["one", "two"]


def test_the_jail_command_isolates_the_network_and_binds_only_what_the_bot_needs(tmp_path: Path) -> None:
    workdir, socket = str(tmp_path / "bot"), str(tmp_path / "run" / "arena.sock")
    policy = SandboxPolicy(unix_socket=socket, read_only_paths=("/opt/bots/mine",))
    command = bubblewrap_command("/usr/bin/bwrap", ["mybot", "--fast"], policy, workdir, workdir, uid=None)
    pairs = list(itertools.pairwise(command))
    for flag in ("--unshare-net", "--unshare-pid", "--die-with-parent"):
        assert flag in command
    assert ("--tmpfs", workdir) in pairs and ("--bind", socket) in pairs, "read-write: its dir and the socket"
    size = command[command.index(workdir) - 3 : command.index(workdir) - 1]
    assert size == ["--size", str(policy.limits.disk_bytes)], "its folder is a tmpfs of its disk quota"
    bound = [path for flag, path in pairs if flag == "--ro-bind"]
    for path in (*code_paths(), sys.base_prefix, "/opt/bots/mine"):
        # (each bound itself, or inside a folder bound: proto/ on sys.path nests the packages)
        assert any(path == folder or path.startswith(folder + "/") for folder in bound), path
    repository = os.path.dirname(code_paths()[0])
    assert ("--ro-bind", repository) not in pairs, "the code's folders, never the folder holding them"
    assert ("--ro-bind", "/") not in pairs and ("--bind", "/") not in pairs
    assert ("--tmpfs", "/tmp") in pairs
    assert ("--dir", "/opt") in pairs and ("--dir", "/opt/bots") in pairs, "parents made walkable"
    assert command[-3:] == ["--", "mybot", "--fast"]


def test_a_root_server_switches_the_jailed_bot_to_its_user_before_it_runs(tmp_path: Path) -> None:
    workdir = str(tmp_path)
    policy = SandboxPolicy()
    command = bubblewrap_command("/usr/bin/bwrap", ["mybot"], policy, workdir, workdir, uid=1_500_000_123)
    switch = command.index("--") + 1
    assert command[switch : switch + 3] == [sys.executable, "-I", "-S"]
    assert command[-1] == "mybot"
    # Its user and folders come through the environment: its command line names no host folder.
    settings = {command[i + 1]: command[i + 2] for i in range(switch) if command[i] == "--setenv"}
    assert settings["KINGMAKER_JAIL_UID"] == "1500000123" and settings["KINGMAKER_JAIL_CWD"] == workdir
    assert workdir not in command[switch:]
    assert "--chdir" not in command, "only the bot's own user may enter its directory"


def test_the_process_limit_is_the_bots_own_allowance() -> None:
    limits = Limits(processes=10)
    assert processes_rlimit(limits, own_uid=True) == 10
    assert processes_rlimit(Limits(processes=0), own_uid=False) == 0
    assert count_tasks_of_user(os.getuid()) >= threading.active_count()


def test_without_bubblewrap_a_bot_is_refused_with_how_to_get_a_jail(
    fresh_bubblewrap_probe: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KINGMAKER_BWRAP", "none")  # the switch that takes the jail away
    fresh_bubblewrap_probe()
    assert bubblewrap().usable is False and "not installed" in bubblewrap().reason
    said = (PYTHON, "-c", "import sys; print('hostile: ran', file=sys.stderr)")
    with pytest.raises(JailUnavailable) as refused:
        run_to_end(said, SandboxPolicy())
    message = str(refused.value)
    assert "\n" not in message and "apt-get install bubblewrap" in message and "--allow-unjailed" in message


def test_allowed_to_run_unjailed_a_bot_runs_and_the_server_says_so_loudly(
    fresh_bubblewrap_probe: Callable[[], None],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr("shutil.which", lambda name, path=None: None if name == "bwrap" else PYTHON)
    monkeypatch.setattr("kingmaker.server.jail.launcher._warned", set())  # the warning is given once
    fresh_bubblewrap_probe()
    caplog.set_level(logging.WARNING, "kingmaker.server.jail.launcher")
    said = (PYTHON, "-c", "import sys; print('hostile: ran', file=sys.stderr)")
    finished = run_to_end(said, SandboxPolicy(allow_unjailed=True))
    assert finished.outcomes == ["ran"] and finished.jailed is False
    assert "UNJAILED" in caplog.text and "--allow-unjailed" in caplog.text and "not installed" in caplog.text


def test_a_bubblewrap_that_cannot_make_namespaces_is_reported_unusable(
    fresh_bubblewrap_probe: Callable[[], None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr("shutil.which", lambda name: str(fake))
    fresh_bubblewrap_probe()
    status = bubblewrap()
    assert status.usable is False
    assert "No permissions to create new namespace" in status.reason
