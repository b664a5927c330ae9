"""One local Ray cluster for the whole test session (Ray takes tens of seconds to start): a head
and two worker nodes, each a real ``ray start`` process tree, in a network namespace of their own
with only a loopback interface. Always stopped, and every process naming its folder killed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kingmaker.server.execution.ray_cluster import LocalRayCluster


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
