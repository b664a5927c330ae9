"""One local Ray cluster for the whole test session (Ray takes tens of seconds to start): a head
and two worker nodes, each a real ``ray start`` process tree, in a network namespace of their own
with only a loopback interface. Always stopped, and every process naming its folder killed.

Under pytest-xdist every test of this folder runs on one worker (``xdist_group``): each worker
would otherwise start a cluster of its own, three Ray nodes per worker on a two-core machine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kingmaker.server.execution.ray_cluster import LocalRayCluster


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the group into each test's id
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("ray-cluster"))


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[LocalRayCluster]:
    cluster = LocalRayCluster()
    try:
        cluster.start()
        cluster.add_worker(cpus=1)
        cluster.add_worker(cpus=1)
        yield cluster
    finally:
        cluster.stop()
