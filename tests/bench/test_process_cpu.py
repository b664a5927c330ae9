"""bench/process_cpu.py: the CPU per decision that ``bench/referee.py --split`` prints, process by
process, is the arithmetic it says, and it reads real processes' clocks (issue 50)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from bench_modules import load_bench

process_cpu = load_bench("process_cpu")


def test_what_both_runs_pay_once_cancels_out() -> None:
    # Main pays 2 s to start in both runs, then 100 µs per decision; the bots 50 µs per decision.
    short = {"main": 2.0 + 1_000 * 100e-6, "bots": 1_000 * 50e-6}
    long = {"main": 2.0 + 5_000 * 100e-6, "bots": 5_000 * 50e-6, "jail": 0.0}

    per_decision = process_cpu.marginal_per_decision(short, 1_000, long, 5_000)

    assert per_decision["main"] == pytest.approx(100.0)
    assert per_decision["bots"] == pytest.approx(50.0)
    assert per_decision["jail"] == 0.0


def test_a_long_run_that_is_not_longer_is_refused() -> None:
    with pytest.raises(ValueError, match="more decisions"):
        process_cpu.marginal_per_decision({"main": 1.0}, 500, {"main": 2.0}, 500)


def test_a_process_counts_from_its_first_reading_and_one_that_started_later_from_zero() -> None:
    first = {(10, 1): 5.0}  # there when the sampler started, with 5 s already spent
    last = {(10, 1): ("main", 7.5), (11, 2): ("bots", 0.25)}  # 11 started (and may have ended) later

    assert process_cpu.spent(first, last) == {"main": 2.5, "bots": 0.25}


SPIN = """import sys, time
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    pass
time.sleep(60)
"""
WORKER = """import subprocess, sys
subprocess.Popen([sys.executable, sys.argv[1], "0.6", "sample_bots"])
subprocess.run([sys.executable, sys.argv[1], "0.3"])
"""
ROOT = """import subprocess, sys, time
subprocess.Popen([sys.executable, sys.argv[1], sys.argv[2], "process_worker"])
time.sleep(60)
"""


def test_the_sampler_sorts_a_real_tree_and_reads_its_clocks(tmp_path: Path) -> None:
    """A server-like tree: a worker that starts a bot spinning 0.6 s of CPU and a helper spinning
    0.3 s (a worker's child that is no bot counts as the worker's)."""
    for name, code in (("spin.py", SPIN), ("worker.py", WORKER), ("root.py", ROOT)):
        (tmp_path / name).write_text(code)
    root = subprocess.Popen(
        [sys.executable, tmp_path / "root.py", tmp_path / "worker.py", tmp_path / "spin.py"]
    )
    kinds: dict[int, str] = {}
    try:
        sampler = process_cpu.TreeSampler(root.pid, process_cpu.classify_served, every=0.05)
        deadline = time.monotonic() + 120  # generous: the machine may be loaded
        while time.monotonic() < deadline:
            kinds = dict(process_cpu.walk(root.pid, process_cpu.classify_served))
            readings = [process_cpu.read_cpu(pid) for pid in kinds]
            if len(kinds) == 4 and sum(reading.seconds for reading in readings if reading) >= 0.88:
                break
            time.sleep(0.1)
        spent = sampler.stop()
    finally:
        for pid in kinds:
            subprocess.run(["kill", str(pid)], check=False)
        root.kill()
        root.wait()

    assert sorted(kinds.values()) == ["bots", "main", "workers", "workers"]
    # Clock ticks are 10 ms; the interpreters' own start-up is spent too.
    assert spent["bots"] == pytest.approx(0.6, abs=0.2)
    assert spent["workers"] == pytest.approx(0.3, abs=0.2)
    assert spent["main"] < 0.3
