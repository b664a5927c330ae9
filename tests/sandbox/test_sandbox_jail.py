"""Inside the bubblewrap jail: no other bot's files, no network, no process left behind, and
still a way to the referee over the server's Unix socket. Each containment test runs the same
bot without the jail too, to show that the jail is what stops it."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import socket
import tempfile
import uuid
from pathlib import Path

import pytest
from sandbox_helpers import hostile, needs_jail, outcomes, processes_with, run_to_end, wait_for

from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.jail import launcher
from kingmaker.server.jail.cgroups import cgroup_support
from kingmaker.server.jail.launcher import BotProcess, SandboxPolicy
from kingmaker.server.jail.sandbox import running_as_root
from kingmaker.server.seats.sessions import Identity

from support import PYTHON, bot_command

pytestmark = needs_jail

JAIL = SandboxPolicy()
PLAIN = SandboxPolicy(isolate=False)
VICTIM = (
    PYTHON,
    "-c",
    "import sys, time; open('secret.txt', 'w').write('my plan'); "
    "print('hostile: wrote', file=sys.stderr, flush=True); time.sleep(60)",
)


def read_attempts(paths: list[str], policy: SandboxPolicy) -> list[str]:
    """What read_files_bot got for each path while a jailed victim bot has a secret file."""

    async def attempt() -> list[str]:
        victim = await BotProcess.start(VICTIM, {}, sandbox=JAIL)
        assert victim.workdir is not None
        secret = victim.workdir / "secret.txt"
        try:
            await wait_for(lambda: outcomes(victim.stderr_tail()), "the victim wrote its secret")
            reader = hostile("read_files_bot.py", secret, *paths)
            finished = await asyncio.to_thread(run_to_end, reader, policy)
        finally:
            await victim.stop(grace=0)
            victim.discard_logs()
        return finished.outcomes

    return asyncio.run(attempt())


def test_a_jailed_bot_cannot_read_another_bots_files_or_the_servers(tmp_path: Path) -> None:
    server_file = tmp_path / "server-secret.txt"
    server_file.write_text("admin token")
    own_code = str(Path(hostile("read_files_bot.py")[1]))
    jailed = read_attempts([str(server_file), "/etc/shadow", own_code], JAIL)
    assert [line.rsplit(": ", 1)[1] for line in jailed[:3]] == ["ENOENT"] * 3, jailed
    assert jailed[3].startswith(f"{own_code}: read "), "the bot did run and can read its own code"


def test_a_jailed_bot_has_no_network() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        jailed = run_to_end(hostile("network_bot.py", port), JAIL)
        assert jailed.outcomes in (["connect failed: ECONNREFUSED"], ["connect failed: ENETUNREACH"])
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing arrived from the jail
        plain = run_to_end(hostile("network_bot.py", port), PLAIN)
        assert plain.outcomes == ["connected"], "without the jail it connects: the jail is what stops it"
        listener.accept()[0].close()


def leave_a_child_behind(policy: SandboxPolicy, marker: str) -> None:
    async def attempt() -> None:
        process = await BotProcess.start(hostile("escape_bot.py", marker), {}, sandbox=policy)
        try:
            await wait_for(lambda: outcomes(process.stderr_tail()), "the escaped child started")
        finally:
            await process.stop(grace=0)
            process.discard_logs()
        # The jail's PID namespace dies with its first process; give the kernel a moment.
        await wait_for(lambda: not processes_with(marker), "the escaped child is gone", within=10)

    asyncio.run(attempt())


def test_stopping_a_jailed_bot_kills_even_a_child_that_left_its_process_group() -> None:
    marker = f"escapee-{uuid.uuid4().hex}"
    leave_a_child_behind(JAIL, marker)
    assert processes_with(marker) == [], "the PID namespace (and the cgroup) died with the bot"


@pytest.mark.parametrize("finder", ["cgroup", "own user"])
def test_without_the_jail_the_cgroup_or_the_bots_own_user_still_finds_an_escaped_child(
    finder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process-group kill misses a child in a session of its own; the cgroup kill (or, with
    no cgroup, killing every process of the bot's own user) does not."""
    if finder == "cgroup" and not cgroup_support().can_kill:
        pytest.skip(f"no cgroup here: {cgroup_support().describe()}")
    if finder == "own user":
        if not running_as_root() or not others_can_run_python():
            pytest.skip("a user of the bot's own needs a root server and a Python open to other users")
        monkeypatch.setattr("kingmaker.server.jail.launcher.BotCgroup.create", lambda *limits: None)
    marker = f"escapee-{uuid.uuid4().hex}"
    leave_a_child_behind(PLAIN, marker)
    survivors = processes_with(marker)
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert survivors == []


def others_can_run_python() -> bool:
    return launcher._others_can_run([PYTHON], None)


@pytest.mark.skipif(not running_as_root(), reason="only a root server gives each bot a user of its own")
def test_under_root_each_jailed_bot_runs_as_a_user_of_its_own() -> None:
    whoami = (PYTHON, "-c", "import os, sys; print('hostile:', os.getuid(), file=sys.stderr)")

    async def two_bots() -> list[tuple[int | None, int]]:
        bots = [await BotProcess.start(whoami, {}, sandbox=JAIL) for _ in range(2)]
        seen = []
        for bot in bots:
            assert bot.workdir is not None
            owner = bot.workdir.stat().st_uid
            await bot.exited(within=30)
            await bot.stop(grace=0)
            seen.append((bot.uid, owner, int(outcomes(bot.stderr_tail())[0])))
            bot.discard_logs()
        return [(uid, reported) for uid, owner, reported in seen if uid == owner]

    seen = asyncio.run(two_bots())
    assert len(seen) == 2, "each bot's working directory belongs to its user"
    assert all(uid == reported and uid != 0 for uid, reported in seen)
    assert seen[0][0] != seen[1][0]


def test_a_jailed_sdk_bot_reaches_the_referee_over_the_unix_socket(kingmaker_home: Path) -> None:
    socket_path = os.path.join(tempfile.mkdtemp(prefix="km-"), "arena.sock")  # short: sun_path limit
    running = BackgroundServer(ServerConfig(address=f"unix:{socket_path}"))
    policy = SandboxPolicy(unix_socket=socket_path)

    async def say_hello() -> tuple[str, bool]:
        token = secrets.token_urlsafe(16)
        pool = running.server.pool
        waiting = pool.expect(token, Identity(bot="jailed-random", launch_key=token))
        environment = {"KINGMAKER_SERVER": policy.server_address, "KINGMAKER_TOKEN": token}
        process = await BotProcess.start(bot_command("random_bot.py"), environment, sandbox=policy)
        try:
            session = await asyncio.wait_for(waiting, 30)
            pool.remove(session)
            return session.identity.bot, process.jailed
        finally:
            pool.forget(token)
            await process.stop(grace=1)
            process.discard_logs()

    try:
        assert running.run(say_hello()) == ("jailed-random", True)
    finally:
        running.stop()
        Path(socket_path).unlink(missing_ok=True)
        os.rmdir(os.path.dirname(socket_path))
