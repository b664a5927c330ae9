"""Soak run: a long league in which a third of the bots are faulty, through a real server.

    python bench/soak.py                  # 200+ matches, prints a table
    python bench/soak.py --rounds 3       # a shorter run

Nine registered managed bots play a Kingdoms round robin (36 pairings per round): six random
bots, a crashing bot, an illegal-move bot and a flaky bot that is late once per match. Checks
at the end that every match reached a final state (finished, or cancelled because a faulty bot
was suspended), and samples the server process's resident memory as the league goes.
"""

from __future__ import annotations

import os

# Bots are forked from this process, which also runs gRPC; see kingmaker/server/__init__.py.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import resource
import tempfile
import time
from pathlib import Path

import grpc
from rich.console import Console
from rich.table import Table

from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli.demo import sample_bot
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

BOTS = {
    **{f"random-{i}": "random_bot" for i in range(1, 7)},
    "crasher": "faulty.crash_bot",
    "cheater": "faulty.illegal_bot",
    "flaky": "faulty.flaky_bot",
}


def resident_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=6, help="round robins of 36 matches (default 6: 216)")
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory(prefix="kingmaker-soak-") as folder:
        os.environ["KINGMAKER_HOME"] = folder
        config = ServerConfig(
            address="127.0.0.1:0",
            database_url=f"sqlite:///{Path(folder) / 'soak.db'}",
            admin_token="soak",
            time_control=TimeControl(decision_ms=300),
            concurrency=args.concurrency,
        )
        server = BackgroundServer(config)
        try:
            rows = soak(server, args.rounds, args.concurrency)
        finally:
            server.stop()
    table = Table(title="soak: Kingdoms round robin, 9 bots, 3 of them faulty")
    for column in (
        "matches done",
        "finished",
        "cancelled",
        "void",
        "elapsed s",
        "matches/s",
        "server RSS MiB",
    ):
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(*row)
    console.print(table)


def soak(server: BackgroundServer, rounds: int, concurrency: int) -> list[tuple[str, ...]]:
    metadata = (("authorization", "Bearer soak"),)
    rows = []
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        for name, module in BOTS.items():
            command = sample_bot(module)
            admin.AddBot(
                admin_pb2.AddBotRequest(name=name, games=["kingdoms"], command=command), metadata=metadata
            )
        request = admin_pb2.CreateLeagueRequest(
            name="soak", game="kingdoms", bots=list(BOTS), rounds=rounds, seed=1
        )
        planned = sum(admin.CreateLeague(request, metadata=metadata).matches.values())
        started = time.perf_counter()
        every = max(1, planned // 8)
        last_row = -every
        run = admin.RunLeague(
            admin_pb2.RunLeagueRequest(name="soak", concurrency=concurrency), metadata=metadata
        )
        for progress in run:
            counts = league_progress(server.server.db, leagues.get_league(server.server.db, "soak").id)
            done = counts["finished"] + counts["cancelled"] + counts["void"]
            if done - last_row >= every or progress.done:
                elapsed = time.perf_counter() - started
                rows.append(
                    (
                        f"{done}/{planned}",
                        str(counts["finished"]),
                        str(counts["cancelled"]),
                        str(counts["void"]),
                        f"{elapsed:.1f}",
                        f"{counts['finished'] / elapsed:.2f}" if elapsed else "-",
                        f"{resident_mib():.1f}",
                    )
                )
                last_row = done
        final = league_progress(server.server.db, leagues.get_league(server.server.db, "soak").id)
        unsettled = final["scheduled"] + final["running"]
        assert unsettled == 0, f"{unsettled} matches never reached a final state"
    return rows


if __name__ == "__main__":
    main()
