"""A submitted version plays on Ray worker nodes: each node is sent the packed built folder once
and caches it by hash; the league's matches record the version that played."""

from __future__ import annotations

import os
import re
import secrets
import tempfile
from pathlib import Path

import pytest
from test_league_on_ray import METADATA, ClusterServer, rows
from typer.testing import CliRunner

from kingmaker.server.cli import app
from kingmaker.server.execution.ray_cluster import LocalRayCluster
from kingmaker.server.jail.sandbox import bubblewrap

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")]

HELPED = """
import helpers
from kingmaker.sdk import Bot, Request, run


class Helped(Bot):
    def act(self, request: Request) -> int:
        return helpers.choose(len(request.legal_actions))


run(Helped())
"""


def test_a_submitted_version_is_sent_to_each_node_once_and_plays_there(
    ray_cluster: LocalRayCluster, tmp_path: Path
) -> None:
    server = ClusterServer(ray_cluster, tmp_path, "--log-level", "info")
    try:
        for name in ("first", "second"):
            folder = tmp_path / name
            folder.mkdir()
            (folder / "bot.py").write_text(HELPED)
            # A fresh hash each run: the nodes' caches outlive a test run.
            (folder / "helpers.py").write_text(
                f"# {secrets.token_hex(8)}\ndef choose(count):\n    return 0\n"
            )
            result = CliRunner().invoke(
                app,
                ["submit", str(folder), "--bot", name, "-g", "kingdoms", "--server", server.address,
                 "--admin-token", METADATA[0][1].removeprefix("Bearer ")],
            )  # fmt: skip
            assert result.exit_code == 0, result.stderr or result.stdout
        command = [
            "league",
            "create",
            "ray",
            "-g",
            "kingdoms",
            "-b",
            "first",
            "-b",
            "second",
            "--rounds",
            "4",
        ]
        for args in (command, ["league", "run", "ray"]):
            result = CliRunner().invoke(
                app,
                [*args, "--server", server.address, "--admin-token", METADATA[0][1].removeprefix("Bearer ")],
            )
            assert result.exit_code == 0, result.stderr or result.stdout
    finally:
        server.stop()
    assert rows(server.database, "SELECT status, count(*) FROM match GROUP BY status") == [("finished", 4)]
    assert rows(server.database, "SELECT DISTINCT version FROM matchseat") == [(1,)]
    # The nodes' cache (a folder of their own, not the server's home) holds each built folder.
    cache = Path(tempfile.gettempdir()) / f"kingmaker-builds-{os.getuid()}"
    built = [hash for (hash,) in rows(server.database, "SELECT build_hash FROM botversion")]
    assert len(built) == 2 and all((cache / build_hash / "helpers.py").is_file() for build_hash in built)
    # Matches that start together on one node send a built folder to it once, not once each.
    sent = re.findall(r"sent the built folder (\w+) to (\S+)", server.log.read_text())
    assert sent and len(sent) == len(set(sent)), sent
