"""Under the README's `pytest -n 4 --dist loadgroup`, the Ray cluster's tests share one worker.

pytest 9.2's structured node ids once dropped pytest-xdist's loadgroup suffix, and ``xdist_group``
silently stopped grouping (the pin in pyproject.toml): every worker would then start a Ray cluster
of its own. This runs two of the cluster folder's quick tests (neither starts a cluster) on two
workers; load scheduling hands two ungrouped tests one to each worker, grouped ones go to one."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from support import REPO

QUICK = (
    "tests/cluster/test_ray_cluster_ports.py::test_a_port_offered_twice_is_handed_out_once",
    "tests/cluster/test_executors.py::test_serve_refuses_an_executor_or_log_level_it_cannot_use"
    "[args0-choose one of local, processes, ray]",
)


def test_the_ray_cluster_tests_run_on_one_worker() -> None:
    command = [sys.executable, "-m", "pytest", "-n", "2", "-v", "-p", "no:cacheprovider", *QUICK]
    # (its own run, not a worker of this one's)
    environment = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_")}
    run = subprocess.run(
        command, cwd=REPO, env=environment, capture_output=True, text=True, timeout=600, check=False
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    passed = re.findall(r"^\[(gw\d+)\] .*PASSED (.+?)\s*$", run.stdout, re.MULTILINE)
    assert len(passed) >= 2, run.stdout[-3000:]
    assert all(test.endswith("@ray-cluster") for _, test in passed), passed
    assert len({worker for worker, _ in passed}) == 1, f"the group was split: {passed}"
