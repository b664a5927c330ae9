"""The local Ray cluster gives each of its components a port of its own."""

from __future__ import annotations

import shutil

import pytest

from kingmaker.server.execution import ray_cluster
from kingmaker.server.execution.ray_cluster import LocalRayCluster


def test_a_port_offered_twice_is_handed_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Probing closes each socket before the next, so the system may offer one port twice; in
    CI a client server and a dashboard agent once got the same one, and Ray refused to start."""
    offered = iter([50771, 50771, 48589, 50771, 33743])
    monkeypatch.setattr(ray_cluster, "free_port", lambda: next(offered))
    cluster = LocalRayCluster()
    try:
        assert [cluster.distinct_port() for _ in range(3)] == [50771, 48589, 33743]
    finally:
        shutil.rmtree(cluster.folder, ignore_errors=True)
