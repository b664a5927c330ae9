"""A jailed bot never sees the server's home and never reaches the Admin service (issue 23, item 1).

The attack as it was found: a server started from the repository root as the README shows (home
`./.kingmaker`), a managed bot `my_bot.py` in that same folder. The jail bound the whole code
folder, so the home was inside the jail, and the bot, running as the server's user, read the
admin token and the database, then called `ListBots`, `AddBot` and `SetBotEnabled` over the
jail's own Unix socket, which served the Admin service too. Here the bot holds the real admin
token besides (as if it had leaked some other way) and tries every address it can find.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from sandbox_helpers import HOSTILE, needs_jail, outcomes
from unprivileged import NOBODY, NOGROUP, python_for_others, readme_checkout

from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.jail.launcher import BotProcess, SandboxPolicy
from kingmaker.server.jail.sandbox import bubblewrap_command, code_paths
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

from support import PYTHON

pytestmark = needs_jail


def attack(address: str, token: str, command: list[str]) -> tuple[list[str], list[str], bool]:
    """Register a victim and the hostile bot, let the bot try, and read what it got: its
    outcomes, the bots the server knows afterwards, and whether the victim is still enabled."""
    metadata = (("authorization", f"Bearer {token}"),)
    with grpc.insecure_channel(address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        admin.AddBot(admin_pb2.AddBotRequest(name="victim", games=["kingdoms"]), metadata=metadata)
        request = admin_pb2.AddBotRequest(name="hostile", games=["kingdoms"], command=command)
        admin.AddBot(request, metadata=metadata)
        checked = admin.CheckBot(admin_pb2.CheckBotRequest(name="hostile"), metadata=metadata, timeout=300)
        names = [bot.name for bot in admin.ListBots(admin_pb2.ListBotsRequest(), metadata=metadata).bots]
        victim = admin.GetBot(admin_pb2.GetBotRequest(name="victim"), metadata=metadata)
    return outcomes(checked.stderr_tail), names, victim.enabled


def assert_refused_everywhere(
    home: Path, tcp_address: str, seen: list[str], names: list[str], victim: bool
) -> None:
    assert "done" in seen, f"the bot did not finish its attempts: {seen}"
    assert f"{home}/admin-token: ENOENT" in seen
    assert f"{home}/kingmaker.db: ENOENT" in seen
    methods = ("ListBots:", "AddBot:", "SetBotEnabled:")
    calls = [line for line in seen if len(line.split(" ")) == 3 and line.split(" ")[1] in methods]
    addresses = {line.split(" ")[0] for line in calls}
    assert tcp_address in addresses and any(address.startswith("unix:") for address in addresses), seen
    assert f"unix:{home}/admin.sock" in addresses, "the admin lane's socket was tried"
    assert len(calls) == 3 * len(addresses)
    for line in calls:
        assert line.endswith(("UNIMPLEMENTED", "UNAVAILABLE")), f"an Admin call got through: {line}"
    assert "planted" not in names and victim, "the server's state changed"


def hostile_bot_in(folder: Path) -> Path:
    """The hostile bot as the README's `my_bot.py`: in the folder that holds the home."""
    script = folder / "my_bot.py"
    shutil.copy(HOSTILE / "admin_bot.py", script)
    script.chmod(0o755)
    return script


def test_a_root_servers_jailed_bot_in_the_home_folder_reaches_neither_home_nor_admin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "kingmaker"
    checkout.mkdir()
    home = checkout / ".kingmaker"
    monkeypatch.setenv("KINGMAKER_HOME", str(home))
    monkeypatch.delenv("KINGMAKER_ADMIN_TOKEN", raising=False)
    script = hostile_bot_in(checkout)
    server = BackgroundServer(ServerConfig(address="127.0.0.1:0"))
    try:
        token = server.admin_token
        command = [PYTHON, str(script), str(home), server.address, token]
        seen, names, victim = attack(server.address, token, command)
        assert server.server.lane_addresses == [f"unix:{home}/admin.sock"], "the lane listened there"
    finally:
        server.stop()
    assert (home / "admin-token").exists() and (home / "kingmaker.db").exists()
    assert_refused_everywhere(home, server.address, seen, names, victim)


@pytest.fixture
def unprivileged_checkout() -> Iterator[Path]:
    python = python_for_others()
    if python is None:
        pytest.fail(
            "no Python an unprivileged user may run: install Debian's python3 (apt-get install python3)"
        )
    checkout = readme_checkout(python)
    try:
        yield checkout
    finally:
        shutil.rmtree(checkout.parent, ignore_errors=True)


@pytest.mark.slow
def test_an_unprivileged_servers_jailed_bot_reaches_neither_home_nor_admin(
    unprivileged_checkout: Path,
) -> None:
    checkout = unprivileged_checkout
    script = hostile_bot_in(checkout)
    os.chown(script, NOBODY, NOGROUP)
    become = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOGROUP}", "--clear-groups"]
    environment = {"PATH": os.environ["PATH"], "HOME": str(checkout), "LANG": "C.UTF-8"}
    # As the README: `.venv/bin/kingmaker serve` in the checkout, its home ./.kingmaker.
    server = subprocess.Popen(
        [*become, ".venv/bin/kingmaker", "serve", "--address", "127.0.0.1:0"],
        cwd=checkout,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        address = wait_for_address(server)
        home = checkout / ".kingmaker"
        assert os.stat(home).st_uid == NOBODY, "the server runs as the unprivileged user"
        token = (home / "admin-token").read_text().strip()
        command = [str(checkout / ".venv/bin/python"), str(script), str(home), address, token]
        seen, names, victim = attack(address, token, command)
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert_refused_everywhere(home, address, seen, names, victim)


def wait_for_address(server: subprocess.Popen[str]) -> str:
    """The address `serve` prints once it listens (generous: the machine may be loaded)."""
    assert server.stdout is not None
    deadline = time.monotonic() + 120
    said = []
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        said.append(line)
        if "serving on" in line:
            return line.rsplit(" ", 1)[-1].strip()
        if not line and server.poll() is not None:
            break
    pytest.fail(f"the server did not start: {''.join(said)}")


def test_the_jail_covers_the_home_wherever_a_folder_it_shows_holds_it(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    (bots / ".kingmaker").mkdir(parents=True)
    (bots / ".kingmaker" / "admin-token").write_text("secret")
    (bots / "elsewhere.db").write_text("rows")
    hidden = (str(bots / ".kingmaker"), str(bots / "elsewhere.db"), str(tmp_path / "not-shown"))
    policy = SandboxPolicy(read_only_paths=(str(bots),), hidden_paths=hidden)
    command = bubblewrap_command("/usr/bin/bwrap", ["bot"], policy, "/w", "/w", uid=None)
    joined = " ".join(command)
    assert f"--tmpfs {bots / '.kingmaker'} --remount-ro {bots / '.kingmaker'}" in joined
    assert f"--ro-bind /dev/null {bots / 'elsewhere.db'}" in joined
    assert "not-shown" not in joined, "what the jail does not show needs no cover"
    assert command.index(f"{bots / '.kingmaker'}") > command.index(str(bots)), "covered after it is bound"


def test_a_bots_helper_module_beside_it_is_found_and_its_folders_home_is_not(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    (folder / ".kingmaker").mkdir(parents=True)
    (folder / ".kingmaker" / "admin-token").write_text("secret")
    (folder / "helpers.py").write_text("WORD = 'found'\n")
    (folder / "bot.py").write_text(
        "import os, sys, helpers\n"
        "print('hostile:', helpers.WORD, os.listdir(os.path.join(os.path.dirname(__file__), '.kingmaker')),"
        " file=sys.stderr)\n"
    )
    policy = SandboxPolicy(hidden_paths=(str(folder / ".kingmaker"),))

    async def run() -> str:
        process = await BotProcess.start((PYTHON, str(folder / "bot.py")), {}, sandbox=policy)
        await process.exited(within=60)
        await process.stop(grace=0)
        tail = process.stderr_tail()
        process.discard_logs()
        return tail

    assert outcomes(asyncio.run(run())) == ["found []"]


def test_a_home_that_holds_what_every_bot_is_shown_is_refused_before_anything_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    holder = os.path.dirname(code_paths()[0])  # the folder holding the code (a checkout's root)
    before = set(os.listdir(holder))
    monkeypatch.setenv("KINGMAKER_HOME", holder)
    with pytest.raises(Exception, match="every jailed bot is shown") as refused:
        BackgroundServer(ServerConfig(address="127.0.0.1:0", database_url=f"sqlite:///{tmp_path}/k.db"))
    assert "\n" not in str(refused.value)
    assert set(os.listdir(holder)) == before, "nothing was made in it"
