"""The CPU each test costs, for finding what makes the suite slow: opt in with
``KINGMAKER_TEST_CPU=FILE``, and each test appends one JSON line to FILE (with pytest-xdist, every
worker to its own FILE.gwN).

On two shared cores the suite is bound by CPU, not by waiting, so a test's wall time mostly
says how busy its neighbours were; its CPU says what it costs. Counted: this process (the test,
the servers it runs in threads) and the children it reaped (bots, jails, builds, browsers,
worker processes), from setup to teardown. A child reaped later (a module's server) is
counted in the test that reaps it."""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator

import pytest

FILE = os.environ.get("KINGMAKER_TEST_CPU", "")


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    if not FILE:
        yield
        return
    wall, (own, children) = time.monotonic(), _cpu()
    yield
    after_own, after_children = _cpu()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    line = {
        "test": item.nodeid,
        "wall": round(time.monotonic() - wall, 3),
        "own": round(after_own - own, 3),
        "children": round(after_children - children, 3),
    }
    with open(f"{FILE}.{worker}" if worker else FILE, "a") as out:
        out.write(json.dumps(line) + "\n")
