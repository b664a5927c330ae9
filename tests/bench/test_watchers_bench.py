"""bench/watchers.py's arithmetic: a crowd's windows taken together as one run (their finishes
over their time, not a mean of their rates), the server's own child processes found as its
workers (and nothing else), and the CPU of each part subtracted part by part."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from bench_modules import BENCH, load_bench

SLEEPER = "import time; time.sleep(60)"


def test_windows_as_one_run_count_finishes_over_time() -> None:
    sys.path.insert(0, str(BENCH))  # the bench's own imports (table)
    watchers = load_bench("watchers")
    cost = watchers.Cpu(0.0, 0.0, 0.0)
    windows = [watchers.Window(60.0, cost, 10, 10.0), watchers.Window(90.0, cost, 30, 20.0)]
    assert watchers._whole_run(windows) == 80.0  # 40 matches in 30 s; the mean of rates says 75


def test_the_cpu_of_each_part_and_the_children_of_a_process() -> None:
    sys.path.insert(0, str(BENCH))
    watchers = load_bench("watchers")
    assert watchers.Cpu(5.0, 7.0, 1.5) - watchers.Cpu(1.0, 2.0, 0.5) == watchers.Cpu(4.0, 5.0, 1.0)
    parent = subprocess.Popen(
        [sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {SLEEPER!r}])"]
    )
    other = subprocess.Popen([sys.executable, "-c", SLEEPER])
    try:
        children: list[int] = []
        for _ in range(600):  # until the child is started (generous: the machine is shared)
            children = watchers._children(parent.pid)
            if children:
                break
            time.sleep(0.1)
        assert len(children) == 1 and other.pid not in children and parent.pid not in children
    finally:
        for child in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
        for process in (parent, other):
            process.kill()
            process.wait(10)
