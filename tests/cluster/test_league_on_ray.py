"""A league through the server with the Ray executor, on a real local Ray cluster: one worker
node is killed mid-league, and still every match is recorded once and every rating counted once."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from typer.testing import CliRunner

from kingmaker.server.cli import app
from kingmaker.server.execution.ray_cluster import LocalRayCluster
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

pytestmark = pytest.mark.slow

TOKEN = "ray-test-token"
METADATA = (("authorization", f"Bearer {TOKEN}"),)
# A random bot that waits 5 ms per decision: a match then stays in play for most of a second, so
# a match the scheduler counts as running is in play on its worker, not between its last move
# and its recorded result (with instant bots that gap was 1 in 5 of the moments the test chose).
PATIENT = [
    sys.executable,
    "-c",
    "import time\n"
    "from kingmaker.sample_bots.random_bot import RandomBot\n"
    "from kingmaker.sdk import run\n"
    "class Patient(RandomBot):\n"
    "    def act(self, request):\n"
    "        time.sleep(0.005)\n"
    "        return super().act(request)\n"
    "run(Patient())\n",
]


class ClusterServer:
    """`kingmaker serve --executor ray` in the cluster's network namespace, on a Unix socket."""

    def __init__(self, cluster: LocalRayCluster, folder: Path, *options: str) -> None:
        self.socket = folder / "server.sock"
        self.database = folder / "league.db"
        self.address = f"unix:{self.socket}"
        self.log = folder / "server.log"
        command = [
            sys.executable, "-m", "kingmaker.server.cli", "serve", "--address", self.address,
            "--database-url", f"sqlite:///{self.database}", "--admin-token", TOKEN,
            "--concurrency", "4", "--executor", "ray", "--ray-address", cluster.address, *options,
        ]  # fmt: skip
        environment = {**os.environ, "KINGMAKER_HOME": str(folder / "home")}
        with self.log.open("wb") as output:
            self.process = subprocess.Popen(
                cluster.inside(command), env=environment, stdout=output, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 120
        while not self.socket.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not start: {self.log.read_text()[-3000:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)


@pytest.fixture
def cluster_server(ray_cluster: LocalRayCluster, tmp_path: Path) -> Iterator[ClusterServer]:
    server = ClusterServer(ray_cluster, tmp_path)
    try:
        yield server
    finally:
        server.stop()


def rows(database: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(database) as connection:
        return connection.execute(query).fetchall()


def test_a_league_on_ray_survives_a_lost_worker(
    ray_cluster: LocalRayCluster, cluster_server: ClusterServer
) -> None:
    names = [f"random-{i}" for i in range(4)]
    with grpc.insecure_channel(cluster_server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        for name in names:
            request = admin_pb2.AddBotRequest(name=name, games=["kingdoms"], command=PATIENT)
            admin.AddBot(request, metadata=METADATA)
        request = admin_pb2.CreateLeagueRequest(name="l", game="kingdoms", bots=names, rounds=6, seed=5)
        planned = sum(admin.CreateLeague(request, metadata=METADATA).matches.values())
        assert planned == 36
        victim = ray_cluster.workers()[0]
        last = None
        for progress in admin.RunLeague(admin_pb2.RunLeagueRequest(name="l"), metadata=METADATA):
            # Matches go to the least busy of the two workers: with two in play, one is on each.
            if victim.process.poll() is None and progress.finished >= 4 and progress.running >= 2:
                victim.kill()  # a worker node dies mid-league, its matches with it
            last = progress
    assert victim.process.poll() is not None, "the league ended before a worker could be killed"
    assert last is not None and last.done
    output = cluster_server.log.read_text()
    assert "lost with its worker" in output, "a match was in play on the killed worker"

    # Every planned match is finished exactly once, none void, none left running.
    assert rows(cluster_server.database, "SELECT status, count(*) FROM match GROUP BY status") == [
        ("finished", planned)
    ]
    assert last.finished == planned
    # Ratings counted each match once: per bot, its counter equals the matches it finished.
    db = cluster_server.database
    counters = dict(rows(db, "SELECT b.name, r.matches FROM rating r JOIN bot b ON b.id = r.bot_id"))
    played = dict(
        rows(db, "SELECT b.name, count(*) FROM matchseat s JOIN bot b ON b.id = s.bot_id GROUP BY 1")
    )
    assert counters == played
    assert sum(played.values()) == 2 * planned
    history = rows(db, "SELECT count(*), count(DISTINCT match_id || '-' || bot_id) FROM ratinghistory")
    assert history[0][0] == history[0][1] == 2 * planned
    # Each match kept its full log: the replay of one reaches its recorded end.
    match_id = str(rows(db, "SELECT min(id) FROM match")[0][0])
    result = CliRunner().invoke(
        app, ["replay", match_id, "--verify", "--server", cluster_server.address, "--admin-token", TOKEN]
    )
    assert result.exit_code == 0, result.output
    assert "verified" in result.output
