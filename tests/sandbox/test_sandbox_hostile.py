"""The attacks of issue 13, each by a hostile bot: on the jailed path each is stopped, and the test
names what stopped it; on a machine without a jail each is refused before it runs at all."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from sandbox_helpers import hostile, needs_jail, outcomes, run_to_end, wait_for
from typer.testing import CliRunner

from kingmaker.server.app import ServerConfig, admin_token_path
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.jail import launcher
from kingmaker.server.jail.cgroups import cgroup_support
from kingmaker.server.jail.launcher import BotProcess, JailUnavailable, Limits, SandboxPolicy
from kingmaker.server.jail.sandbox import MiB, bubblewrap, running_as_root
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

from support import PYTHON

JAIL = SandboxPolicy()
runner = CliRunner()
SECRET = "victim-token-that-nobody-else-may-read"
SLEEPER = (
    PYTHON,
    "-c",
    "import sys, time; print('hostile: up', file=sys.stderr, flush=True); time.sleep(60)",
)

ATTACKS = {
    "read another bot's token from /proc": hostile("proc_token_bot.py"),
    "kill the server": hostile("kill_server_bot.py", os.getpid()),
    "setsid escape": hostile("escape_bot.py", "marker"),
    "memory split over processes": hostile("memory_split_bot.py", 4, 100),
    "disk split over files": hostile("disk_split_bot.py", 4),
    "fork bomb": hostile("fork_bomb_bot.py", 300),
    "network to loopback": hostile("network_bot.py", 9),
    "read the admin token and database": hostile("read_files_bot.py", "/nonexistent"),
}


@needs_jail
def test_another_bots_token_is_not_in_any_environment_a_jailed_bot_can_see() -> None:
    async def attempt() -> list[str]:
        victim = await BotProcess.start(SLEEPER, {"KINGMAKER_TOKEN": SECRET}, sandbox=JAIL)
        try:
            await wait_for(lambda: outcomes(victim.stderr_tail()), "the victim started")
            finished = await asyncio.to_thread(run_to_end, hostile("proc_token_bot.py"), JAIL)
        finally:
            await victim.stop(grace=0)
            victim.discard_logs()
        return finished.outcomes

    seen = asyncio.run(attempt())
    match = re.fullmatch(r"saw (\d+) other processes, read (\d+) environments, found 0 tokens", seen[0])
    assert match is not None, seen
    # Its own PID namespace: only the jail's own processes (its init, and its own interpreter's
    # parent) exist for it; the victim, the server and every other process are not there.
    assert int(match.group(1)) <= 2, "the PID namespace hides every process outside the jail"


@needs_jail
def test_a_jailed_bot_cannot_kill_the_server() -> None:
    finished = run_to_end(hostile("kill_server_bot.py", os.getpid()), JAIL)
    parent, server = finished.outcomes
    # getppid() is the jail's init: another user's (EPERM) under a root server, and when not
    # root, a process the user namespace gives it no right to signal either way.
    assert parent.endswith(": EPERM") or parent.endswith(": ESRCH"), parent
    assert server == f"server {os.getpid()}: ESRCH", (
        "the PID namespace: the server's pid does not exist there"
    )


@needs_jail
@pytest.mark.skipif("memory" not in cgroup_support().controllers, reason=cgroup_support().describe())
def test_memory_split_over_processes_is_stopped_by_the_bots_memory_cgroup() -> None:
    # Four children of 100 MiB each stay far below RLIMIT_AS (2 GiB per process), but not
    # below the whole bot's 256 MiB.
    policy = SandboxPolicy(Limits(bot_memory_bytes=256 * MiB))
    finished = run_to_end(hostile("memory_split_bot.py", 4, 100), policy)
    assert any(line.endswith("killed by SIGKILL") for line in finished.outcomes), finished.stderr
    assert finished.limit_events["oom_kill"] >= 1, "the memory cgroup's OOM killer stopped it"


@needs_jail
def test_disk_split_over_files_is_stopped_by_the_quota_of_the_bots_folder() -> None:
    # Files of 4 MiB each stay under RLIMIT_FSIZE (8 MiB); the folder's 32 MiB tmpfs does not.
    policy = SandboxPolicy(Limits(file_bytes=8 * MiB, disk_bytes=32 * MiB))
    finished = run_to_end(hostile("disk_split_bot.py", 4, 256), policy)
    [outcome] = finished.outcomes
    match = re.fullmatch(r"wrote (\d+) files, (\d+) MiB, then ENOSPC", outcome)
    assert match is not None, f"the folder's tmpfs size (disk_bytes) should have stopped it: {outcome}"
    assert int(match.group(2)) <= 32


@needs_jail
def test_a_jailed_bot_cannot_read_the_admin_token_or_the_database(server: BackgroundServer) -> None:
    token, database = admin_token_path().resolve(), admin_token_path().resolve().parent / "kingmaker.db"
    assert token.exists() and database.exists()
    finished = run_to_end(hostile("read_files_bot.py", token, database), JAIL)
    assert finished.outcomes == [f"{token}: ENOENT", f"{database}: ENOENT"], "the mount view shows neither"
    assert stat.S_IMODE(token.parent.stat().st_mode) == 0o700, "the server's home is its own"


@pytest.mark.skipif(
    not running_as_root() or not launcher._others_can_run([PYTHON], None),
    reason="a user of the bot's own outside the jail needs a root server and a Python open to others",
)
def test_outside_the_jail_the_bots_own_user_cannot_read_the_admin_token_or_the_database(
    server: BackgroundServer,
) -> None:
    token, database = admin_token_path().resolve(), admin_token_path().resolve().parent / "kingmaker.db"
    unjailed = SandboxPolicy(isolate=False)
    finished = run_to_end(hostile("read_files_bot.py", token, database), unjailed)
    assert finished.outcomes == [f"{token}: EACCES", f"{database}: EACCES"], "its own uid, the home 0700"


@needs_jail
@pytest.mark.skipif(not running_as_root(), reason="a user of its own needs a root server")
def test_a_fork_bomb_in_the_jail_stops_at_its_own_users_process_limit() -> None:
    finished = run_to_end(hostile("fork_bomb_bot.py", 300), SandboxPolicy(Limits(processes=20)))
    assert finished.outcomes == ["fork failed after 19 children: EAGAIN"], "RLIMIT_NPROC of its own uid"


@pytest.fixture
def no_jail(fresh_bubblewrap_probe: Callable[[], None], monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as if bubblewrap were not installed (the ``KINGMAKER_BWRAP=none`` switch)."""
    monkeypatch.setenv("KINGMAKER_BWRAP", "none")
    fresh_bubblewrap_probe()
    assert not bubblewrap().usable


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_without_a_jail_every_attack_is_refused_before_it_runs(no_jail: None, attack: str) -> None:
    with pytest.raises(JailUnavailable, match="no jail for managed bots here"):
        run_to_end(ATTACKS[attack], JAIL)


def test_without_a_jail_the_server_refuses_managed_bots_and_says_how_to_get_one(
    no_jail: None, server: BackgroundServer
) -> None:
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        metadata = (("authorization", f"Bearer {server.admin_token}"),)
        command = list(hostile("read_files_bot.py", admin_token_path().resolve()))
        with pytest.raises(grpc.RpcError) as refused:
            admin.AddBot(
                admin_pb2.AddBotRequest(name="thief", games=["kingdoms"], command=command, check=True),
                metadata=metadata,
            )
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "apt-get install bubblewrap" in str(refused.value.details())
        admin.AddBot(
            admin_pb2.AddBotRequest(name="thief", games=["kingdoms"], command=command), metadata=metadata
        )
        shown = admin.GetBot(admin_pb2.GetBotRequest(name="thief"), metadata=metadata)
        assert shown.confinement.startswith("refused: no jail here")
        seats = [admin_pb2.MatchSeat(bot="thief"), admin_pb2.MatchSeat(bot="thief")]
        with pytest.raises(grpc.RpcError) as refused:
            admin.RunMatch(admin_pb2.RunMatchRequest(game="kingdoms", seats=seats), metadata=metadata)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "\n" not in refused.value.details() and "--allow-unjailed" in refused.value.details()
        league = admin_pb2.CreateLeagueRequest(name="heist", game="kingdoms", bots=["thief", "thief-2"])
        admin.AddBot(
            admin_pb2.AddBotRequest(name="thief-2", games=["kingdoms"], command=command), metadata=metadata
        )
        admin.CreateLeague(league, metadata=metadata)
        with pytest.raises(grpc.RpcError) as refused:
            list(admin.RunLeague(admin_pb2.RunLeagueRequest(name="heist"), metadata=metadata))
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION, "refused before any match starts"


def test_bot_show_says_when_the_server_runs_bots_unjailed(no_jail: None, kingmaker_home: Path) -> None:
    running = BackgroundServer(ServerConfig(address="127.0.0.1:0", allow_unjailed=True))
    try:
        command = shlex.join(SLEEPER)
        added = runner.invoke(
            app,
            [
                "bot",
                "add",
                "trusted",
                "-g",
                "kingdoms",
                "-c",
                command,
                "--no-check",
                "--server",
                running.address,
            ],
        )
        assert added.exit_code == 0, added.output
        shown = runner.invoke(app, ["bot", "show", "trusted", "--server", running.address])
    finally:
        running.stop()
    assert shown.exit_code == 0, shown.output
    assert "runs: UNJAILED: the server allows bots without a jail (--allow-unjailed)" in shown.stdout


@needs_jail
def test_bot_show_says_a_managed_bot_runs_jailed(server: BackgroundServer) -> None:
    command = shlex.join(SLEEPER)
    added = runner.invoke(
        app,
        ["bot", "add", "caged", "-g", "kingdoms", "-c", command, "--no-check", "--server", server.address],
    )
    assert added.exit_code == 0, added.output
    shown = runner.invoke(app, ["bot", "show", "caged", "--server", server.address])
    assert "runs: jailed (bubblewrap: no network" in shown.stdout


@needs_jail
@pytest.mark.skipif("cpu" not in cgroup_support().controllers, reason=cgroup_support().describe())
def test_a_cpu_quota_holds_all_the_bots_processes_to_their_cores() -> None:
    burn = (
        "import os, sys, time\n"
        "for _ in range(3):\n"
        "    if os.fork() == 0: break\n"
        "start = time.monotonic()\n"
        "while time.monotonic() - start < 1.5: pass\n"
        "used = os.times()\n"
        "print('hostile:', used.user + used.system, file=sys.stderr, flush=True)\n"
        # The first process waits for the others: its exit ends the jail, and a throttled child
        # may not have printed yet.
        "while True:\n"
        "    try: os.wait()\n"
        "    except ChildProcessError: break\n"
    )
    finished = run_to_end((PYTHON, "-c", burn), SandboxPolicy(Limits(cpu_cores=0.2)))
    spent = sum(float(line) for line in finished.outcomes)
    assert len(finished.outcomes) == 4
    # Four processes spinning for 1.5 s would use up to 6 s of CPU (or 3 s on two cores); the
    # quota of 0.2 core lets them have about 0.3 s together.
    assert spent < 0.8, f"the cgroup's CPU quota should have held them to 0.2 core: {spent:.2f} s"


@pytest.mark.parametrize(
    ("flags", "said"),
    [([], "managed bots: refused: no jail here"), (["--allow-unjailed"], "managed bots: UNJAILED")],
)
def test_serve_says_at_start_how_managed_bots_run(tmp_path: Path, flags: list[str], said: str) -> None:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("KINGMAKER_")}
    environment |= {"KINGMAKER_BWRAP": "none", "KINGMAKER_HOME": str(tmp_path), "COLUMNS": "300"}
    command = [PYTHON, "-m", "kingmaker.server.cli", "serve", "-a", "127.0.0.1:0", *flags]
    serving = subprocess.Popen(command, env=environment, stdout=subprocess.PIPE, text=True)
    try:
        assert serving.stdout is not None
        lines = [serving.stdout.readline() for _ in range(3)]
    finally:
        serving.terminate()
        serving.wait(30)
    assert lines[2].startswith(said), lines
    if not flags:
        assert "apt-get install bubblewrap" in lines[2] and "--allow-unjailed" in lines[2]
