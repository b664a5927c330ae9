"""Spectators of a match played on a Ray worker node: the server's website streams its board as
moves are made there, the public board only, and the last frame says the game is over."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from test_league_on_ray import METADATA, ClusterServer, rows
from web.web_support import spectator_views

from kingmaker.ladder.db import open_database
from kingmaker.server.execution.ray_cluster import LocalRayCluster
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

pytestmark = pytest.mark.slow

WEB_PORT = 8765
"""The website's port, in the cluster's own network namespace (nothing else listens there)."""
# A random bot that thinks 100 ms per move: a Kingdoms match stays in play for over ten seconds,
# time enough for the reader to start in the namespace on a loaded machine.
SLOW_BOT = (
    "import time\n"
    "from kingmaker.sample_bots.random_bot import RandomBot\n"
    "from kingmaker.sdk import run\n"
    "class Slow(RandomBot):\n"
    "    def act(self, request):\n"
    "        time.sleep(0.1)\n"
    "        return super().act(request)\n"
    "run(Slow())\n"
)
# Reads the live stream from inside the namespace and prints each event as a JSON line.
READ_LIVE = (
    "import json, sys\n"
    "from web_support import events\n"
    "for kind, data, _ in events(sys.argv[1]):\n"
    "    print(json.dumps([kind, data]), flush=True)\n"
)
TOKEN = METADATA[0][1].removeprefix("Bearer ")


def running_match(database: Path, timeout: float = 120) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = rows(database, "SELECT id FROM match WHERE status = 'running'")
        if found:
            return int(str(found[0][0]))
        time.sleep(0.05)
    raise AssertionError("no match started")


def test_a_match_on_a_worker_node_streams_its_public_board_to_the_website(
    ray_cluster: LocalRayCluster, tmp_path: Path
) -> None:
    server = ClusterServer(ray_cluster, tmp_path, "--web", str(WEB_PORT))
    league = None
    try:
        with grpc.insecure_channel(server.address) as channel:
            stub = admin_pb2_grpc.AdminStub(channel)
            for name in ("slow-a", "slow-b"):
                bot = admin_pb2.AddBotRequest(
                    name=name, games=["kingdoms"], command=[sys.executable, "-c", SLOW_BOT]
                )
                stub.AddBot(bot, metadata=METADATA)
            request = admin_pb2.CreateLeagueRequest(
                name="watched", game="kingdoms", bots=["slow-a", "slow-b"], seed=3
            )
            stub.CreateLeague(request, metadata=METADATA)
        league = subprocess.Popen(
            [sys.executable, "-m", "kingmaker.server.cli", "league", "run", "watched",
             "--server", server.address, "--admin-token", TOKEN],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        match_id = running_match(server.database)
        reader = subprocess.run(
            ray_cluster.inside(
                [sys.executable, "-c", READ_LIVE, f"http://127.0.0.1:{WEB_PORT}/api/matches/{match_id}/live"]
            ),
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "web")},
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert reader.returncode == 0, reader.stderr[-3000:]
        assert league.wait(timeout=300) == 0, league.stderr.read() if league.stderr else ""
    finally:
        if league is not None and league.poll() is None:
            league.kill()
            league.wait(timeout=30)
        server.stop()
    log = server.log.read_text()
    assert "playing it on the central server" not in log, "the match was played on a worker node"

    received = [json.loads(line) for line in reader.stdout.splitlines()]
    assert received[-1] == ["end", {"status": "finished"}]
    frames = [data for kind, data in received if kind == "frame"]
    steps = [frame["step"] for frame in frames]
    assert len(frames) >= 3 and steps == sorted(set(steps)), steps  # moves arrive, in order
    assert frames[-1]["over"] is True
    # Each frame is the engine's spectator view at its step: the supply's hidden tiles never in it.
    db = open_database(f"sqlite:///{server.database}")
    try:
        expected = spectator_views(db, match_id)
    finally:
        db.close()
    for frame in frames:
        view = expected[frame["step"]]
        assert frame["view"] == view and view["starting_tile"] is None and view["drawn_tile"] is None
