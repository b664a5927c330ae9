"""Matches per minute with the local executor against the Ray executor with 1 and 2 worker nodes,
in one run, on one local Ray cluster (a head and two worker nodes, 1 CPU each, on loopback in a
network namespace of their own: ``kingmaker.server.execution.ray_cluster``).

Three `kingmaker serve` processes run side by side in the cluster's namespace, one per executor,
each with its own SQLite database and four managed SDK random bots; each plays the same Kingdoms
round robin (2 players, 4 at once) in turn, so the three figures are measured alternately. On this
2-core machine every node shares the same two cores, so this measures what Ray costs per match,
not what more machines give: docs/scaling.md projects that from these figures.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import grpc
from table import Row, Spread

from kingmaker.server.execution.ray_cluster import LocalRayCluster
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

TOKEN = "bench"
METADATA = (("authorization", f"Bearer {TOKEN}"),)
RANDOM = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]


class Served:
    """One server in the cluster's namespace, reached over its Unix socket."""

    def __init__(self, cluster: LocalRayCluster, label: str, executor: list[str]) -> None:
        self.folder = cluster.folder / label
        self.folder.mkdir()
        socket = self.folder / "s.sock"
        self.address = f"unix:{socket}"
        command = [
            sys.executable, "-m", "kingmaker.server.cli", "serve", "--address", self.address,
            "--database-url", f"sqlite:///{self.folder / 'league.db'}", "--admin-token", TOKEN,
            "--concurrency", "4", *executor,
        ]  # fmt: skip
        environment = {**os.environ, "KINGMAKER_HOME": str(self.folder / "home")}
        with (self.folder / "server.log").open("wb") as log:
            self.process = subprocess.Popen(cluster.inside(command), env=environment, stdout=log, stderr=log)
        deadline = time.monotonic() + 120
        while not socket.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"{label}: the server did not start")
            time.sleep(0.1)
        self.channel = grpc.insecure_channel(self.address)
        self.admin = admin_pb2_grpc.AdminStub(self.channel)
        self.names = [f"random-{i}" for i in range(4)]
        for name in self.names:
            request = admin_pb2.AddBotRequest(name=name, games=["kingdoms"], command=RANDOM)
            self.admin.AddBot(request, metadata=METADATA)
        self.runs = 0
        self.cpu_ms_per_match: list[float] = []
        """The central server's own CPU (all its threads) per match, league by league."""
        self.play(rounds=1)  # warm-up: the bots start once, on every host, and are kept

    def play(self, rounds: int) -> float:
        """Matches per minute of one round robin played through the server."""
        self.runs += 1
        name = f"league-{self.runs}"
        request = admin_pb2.CreateLeagueRequest(
            name=name, game="kingdoms", bots=self.names, rounds=rounds, seed=self.runs
        )
        planned = sum(self.admin.CreateLeague(request, metadata=METADATA).matches.values())
        started, cpu = time.perf_counter(), self._cpu_seconds()
        updates = list(self.admin.RunLeague(admin_pb2.RunLeagueRequest(name=name), metadata=METADATA))
        elapsed = time.perf_counter() - started
        assert updates and updates[-1].finished == planned, f"{name}: {updates[-1:]}"
        self.cpu_ms_per_match.append(1000 * (self._cpu_seconds() - cpu) / planned)
        return 60 * planned / elapsed

    def _cpu_seconds(self) -> float:
        """User + system CPU of the server process (nsenter execs it, so the pid is the server's)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_bytes_per_match(self) -> float:
        """The action log and digests per match as stored (packed: ``ladder.compact_logs``); a
        worker sends them back in the report unpacked, several times this."""
        with sqlite3.connect(self.folder / "league.db") as connection:
            query = "SELECT avg(length(actions) + length(digests)) FROM matchlog"
            return float(connection.execute(query).fetchone()[0])

    def close(self) -> None:
        if getattr(self, "channel", None) is not None:
            self.channel.close()
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)


def rows(quick: bool) -> list[Row]:
    rounds, runs = (3, 2) if quick else (8, 3)
    cluster = LocalRayCluster()
    served: dict[str, Served] = {}
    try:
        address = cluster.start()
        cluster.add_worker(cpus=1)
        cluster.add_worker(cpus=1)
        ray = ["--executor", "ray", "--ray-address", address]
        served["local"] = Served(cluster, "local", [])
        served["ray1"] = Served(cluster, "ray1", [*ray, "--ray-workers", "1"])
        served["ray2"] = Served(cluster, "ray2", [*ray, "--ray-workers", "2"])
        figures: dict[str, list[float]] = {label: [] for label in served}
        for _ in range(runs):
            for label, server in served.items():
                figures[label].append(server.play(rounds))
        log_kb = served["ray2"].log_bytes_per_match() / 1000
        central = {label: Spread.of(server.cpu_ms_per_match[1:]) for label, server in served.items()}
    finally:
        for server in served.values():
            server.close()
        cluster.stop()
    local = Spread.of(figures["local"])
    what = "kingdoms 2p, SDK random bots, 4 at once"
    return [
        Row("cluster", f"{what}: Ray executor, 1 worker node", "matches/min", Spread.of(figures["ray1"]),
            "local executor", local),
        Row("cluster", f"{what}: Ray executor, 2 worker nodes", "matches/min", Spread.of(figures["ray2"]),
            "local executor", local),
        Row("cluster", "central server CPU per match, Ray executor (2 nodes): scheduling, result write",
            "ms", central["ray2"], "local executor (refereeing too)", central["local"]),
        Row("cluster", "action log + digests per match, as stored (packed)", "kB",
            Spread(log_kb, log_kb, log_kb)),
    ]  # fmt: skip
