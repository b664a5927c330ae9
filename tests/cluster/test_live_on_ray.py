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
from web_support import spectator_views

from kingmaker.ladder.storage.db import open_database
from kingmaker.server.execution.ray_cluster import LocalRayCluster
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

# Its own waits (a server joining the cluster, a match starting on a worker, its reader) add up to
# minutes on a loaded machine: more than the default 300 s may be needed.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

WEB_PORT = 8765
"""The website's port, in the cluster's own network namespace (nothing else listens there)."""
# A random bot that thinks 100 ms per move: a Kingdoms match stays in play for several seconds.
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
# Reads the live stream from inside the namespace and prints each event as a JSON line. It starts
# (an interpreter in the namespace: seconds on a loaded machine) before the league does, says it
# is ready, and connects as soon as it reads the running match's id: the match cannot be over
# before its reader has even started.
READ_LIVE = (
    "import json, sys\n"
    "from web_support import events\n"
    "print('ready', flush=True)\n"
    "url = sys.argv[1] % int(sys.stdin.readline())\n"
    "for kind, data, _ in events(url):\n"
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
    league = reader = None
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
        reader = subprocess.Popen(
            ray_cluster.inside([sys.executable, "-c", READ_LIVE, f"http://127.0.0.1:{WEB_PORT}/api/matches/%d/live"]),
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "web")},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert reader.stdout is not None and reader.stdout.readline() == "ready\n", "the reader did not start"
        league = subprocess.Popen(
            [sys.executable, "-m", "kingmaker.server.cli", "league", "run", "watched",
             "--server", server.address, "--admin-token", TOKEN],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        match_id = running_match(server.database)
        read, errors = reader.communicate(f"{match_id}\n", timeout=300)
        assert reader.returncode == 0, errors[-3000:]
        assert league.wait(timeout=300) == 0, league.stderr.read() if league.stderr else ""
    finally:
        for process in (reader, league):
            if process is not None and process.poll() is None:
                process.kill()
                process.communicate(timeout=30)
        server.stop()
    log = server.log.read_text()
    assert "playing it on the central server" not in log, "the match was played on a worker node"

    received = [json.loads(line) for line in read.splitlines()]
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
