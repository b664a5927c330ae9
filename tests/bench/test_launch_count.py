"""bench/referee.py counts the bot processes a server starts per league by watching its process
tree: each bot once, by its topmost process (a jail and the bot inside it are one launch), and
nothing outside the tree."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from bench_modules import BENCH, load_bench

SLEEPER = "import time; time.sleep(60)"
JAILED = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {SLEEPER!r}, 'km-bot'])"
TREE = f"""
import subprocess, sys, time
bots = [subprocess.Popen([sys.executable, '-c', {JAILED!r}, 'km-bot']) for _ in range(2)]
bots += [subprocess.Popen([sys.executable, '-c', {SLEEPER!r}, 'km-bot'])]
others = [subprocess.Popen([sys.executable, '-c', {SLEEPER!r}, 'not-a-bot'])]
time.sleep(60)
"""


def test_each_bot_started_under_the_server_counts_once() -> None:
    sys.path.insert(0, str(BENCH))  # the bench's own imports (rates, table)
    referee = load_bench("referee")
    outsider = subprocess.Popen([sys.executable, "-c", SLEEPER, "km-bot"])
    root = subprocess.Popen([sys.executable, "-c", TREE])
    launches = referee.Launches(root.pid, b"km-bot")
    tree: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(tree) < 6 and time.monotonic() < deadline:  # 3 bots, 2 inside jails, 1 other
            time.sleep(0.1)
            tree = descendants(referee, root.pid)
        assert len(tree) == 6
        tops = referee._children(root.pid)
        bots = [pid for pid in tops if b"not-a-bot" not in referee._command_line(pid)]
        assert sorted(launches._bots(root.pid)) == sorted(bots)
        while launches.count() < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        launches.close()
        for pid in [root.pid, *tree, outsider.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        root.wait()
        outsider.wait()
    assert launches.seen == set(bots)


def descendants(referee: object, pid: int) -> list[int]:
    found = []
    for child in referee._children(pid):  # type: ignore[attr-defined]
        found += [child, *descendants(referee, child)]
    return found
