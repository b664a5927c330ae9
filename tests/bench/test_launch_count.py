"""bench/referee.py counts the bot processes a server starts per league by watching its process
tree: each bot once, by its topmost process (a jail and the bot inside it are one launch), and
neither a bot outside the tree nor one that was running before (kept from an earlier league)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from bench_modules import BENCH, load_bench

SLEEPER = "import time; time.sleep(60)"
# The marks come from the environment, so that only a process that has exec'd shows one: a child
# forked but not yet exec'd shows its parent's command line, as serve's own children do.
JAILED = f"import os, subprocess, sys; subprocess.run([sys.executable, '-c', {SLEEPER!r}, os.environ['BOT']])"
TREE = f"""
import os, subprocess, sys, time
sys.stdin.readline()  # started once the test is watching
bot, other = os.environ['BOT'], os.environ['OTHER']
bots = [subprocess.Popen([sys.executable, '-c', {JAILED!r}, bot]) for _ in range(2)]
bots += [subprocess.Popen([sys.executable, '-c', {SLEEPER!r}, bot])]
others = [subprocess.Popen([sys.executable, '-c', {SLEEPER!r}, other])]
time.sleep(60)
"""
MARKS = {"BOT": "km-bot", "OTHER": "not-a-bot"}


def test_each_bot_started_under_the_server_counts_once() -> None:
    sys.path.insert(0, str(BENCH))  # the bench's own imports (rates, table)
    referee = load_bench("referee")
    outsider = subprocess.Popen([sys.executable, "-c", SLEEPER, "km-bot"])
    root = subprocess.Popen([sys.executable, "-c", TREE], stdin=subprocess.PIPE, env={**os.environ, **MARKS})
    launches = referee.Launches(root.pid, b"km-bot")
    assert root.stdin is not None
    root.stdin.write(b"go\n")
    root.stdin.flush()
    tree: list[int] = []
    try:
        deadline = time.monotonic() + 60
        # 3 bots, 2 inside jails, 1 other; and each of root's children past its exec
        started = referee._command_line(root.pid)
        while time.monotonic() < deadline and (
            len(tree) < 6 or started in map(referee._command_line, referee._children(root.pid))
        ):
            time.sleep(0.1)
            tree = descendants(referee, root.pid)
        assert len(tree) == 6
        tops = referee._children(root.pid)
        bots = [pid for pid in tops if b"not-a-bot" not in referee._command_line(pid)]
        assert sorted(launches._bots(root.pid)) == sorted(bots)
        while launches.count() < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        later = referee.Launches(root.pid, b"km-bot")  # as for the next league: none started since
        while len(later.seen) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        later.close()
    finally:
        launches.close()
        for pid in [root.pid, *tree, outsider.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        root.wait()
        outsider.wait()
    assert launches.seen == set(bots) and launches.count() == 3
    assert later.count() == 0


def descendants(referee: object, pid: int) -> list[int]:
    found = []
    for child in referee._children(pid):  # type: ignore[attr-defined]
        found += [child, *descendants(referee, child)]
    return found
