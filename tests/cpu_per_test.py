"""The CPU each test costs, for finding what makes the suite slow: opt in with
``KINGMAKER_TEST_CPU=FILE``, and each test appends one JSON line to FILE (with pytest-xdist, every
worker to its own FILE.gwN).

On two shared cores the suite is bound by CPU, not by waiting, so a test's wall time mostly
says how busy its neighbours were; its CPU says what it costs. Counted: this process (the test,
the servers it runs in threads) and the children it reaped (bots, jails, builds, browsers,
worker processes), from setup to teardown. A child reaped later (a module's server) is
counted in the test that reaps it.

Where the machine gives cgroups that count CPU, the worker moves itself into a group of its own
first, so that every process it starts, and every bot group the servers it runs make (below
the group they start in), is counted there, the jailed bots and daemons that are never reaped
included: ``group`` in the line is that group's CPU over the test."""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator

import pytest

from kingmaker.server.jail.cgroups import BotCgroup, cgroup_support

FILE = os.environ.get("KINGMAKER_TEST_CPU", "")
_group: BotCgroup | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _group
    if not FILE:
        return
    _group = BotCgroup.create(memory_bytes=0, processes=0, cpu_cores=0)
    if _group is not None:
        _group.join()
        cgroup_support.cache_clear()  # (the servers' bot groups are made below this one now)


def _group_seconds() -> float:
    seconds = _group.cpu_seconds() if _group is not None else None
    return seconds if seconds is not None else 0.0


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    if not FILE:
        yield
        return
    wall, (own, children), group = time.monotonic(), _cpu(), _group_seconds()
    yield
    (after_own, after_children), after_group = _cpu(), _group_seconds()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    line = {
        "test": item.nodeid,
        "wall": round(time.monotonic() - wall, 3),
        "own": round(after_own - own, 3),
        "children": round(after_children - children, 3),
        "group": round(after_group - group, 3),
    }
    with open(f"{FILE}.{worker}" if worker else FILE, "a") as out:
        out.write(json.dumps(line) + "\n")
