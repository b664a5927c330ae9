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
JAILED = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {SLEEPER!r}, 'km-bot'])"
TREE = f"""
import subprocess, sys, time
sys.stdin.readline()  # started once the test is watching
bots = [subprocess.Popen([sys.executable, '-c', {JAILED!r}, 'km-bot']) for _ in range(2)]
bots += [subprocess.Popen([sys.executable, '-c', {SLEEPER!r}, 'km-bot'])]
others = [subprocess.Popen([sys.executable, '-c', {SLEEPER!r}, 'not-a-bot'])]
time.sleep(60)
"""


def test_each_bot_started_under_the_server_counts_once() -> None:
    sys.path.insert(0, str(BENCH))  # the bench's own imports (rates, table)
    referee = load_bench("referee")
    outsider = subprocess.Popen([sys.executable, "-c", SLEEPER, "km-bot"])
    root = subprocess.Popen([sys.executable, "-c", TREE], stdin=subprocess.PIPE)
    launches = referee.Launches(root.pid, b"km-bot")
    assert root.stdin is not None
    root.stdin.write(b"go\n")
    root.stdin.flush()
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
