"""A server's memory over a long league: its resident set (RSS) after warm-up, by quarter.

A server refereeing in its own process (``--executor local``: every match's objects live there)
plays one continuous Kingdoms ladder between eight instant bots (legal action 0 at once, no SDK:
the most matches a minute), 4 at once. Its RSS is read at the end of warm-up (the first tenth of
the matches, at least 200: bot processes started, caches and pools filled) and at the end of each
quarter of the rest. The server runs in this process (the bench's own part is the league's
progress messages, read and dropped), so the RSS read is the server's plus a constant."""

from __future__ import annotations

import os

# Bots are forked from this process, which also runs gRPC; see kingmaker/server/__init__.py.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import shutil
import sys
import tempfile
from pathlib import Path

from table import Row, Spread

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer

INSTANT = [sys.executable, "-m", "kingmaker.sample_bots.instant_bot"]
BOTS = 8


def resident_mb() -> float:
    """This process's resident set, in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def rss_by_quarter(matches: int) -> list[float]:
    """RSS at the end of warm-up, then at the end of each quarter of the remaining matches."""
    folder = Path(tempfile.mkdtemp(prefix="km-memory-"))
    os.environ["KINGMAKER_HOME"] = str(folder)
    config = ServerConfig(
        address="127.0.0.1:0",
        database_url=f"sqlite:///{folder / 'ladder.db'}",
        admin_token="bench",
        jail=False,
        executor="local",
        concurrency=4,
    )
    server = BackgroundServer(config)
    warm_up = max(200, matches // 10)
    marks = {warm_up + (matches - warm_up) * quarter // 4 for quarter in range(5)}
    readings: list[float] = []
    try:
        names = [f"instant-{i}" for i in range(BOTS)]
        for name in names:
            bots.register_bot(server.server.db, name, ["kingdoms"], command=INSTANT)
        leagues.create_league(
            server.server.db, "long", "kingdoms", names, format="ladder", max_matches=matches, seed=1
        )

        async def run() -> None:
            finished = 0
            async for progress in server.server.leagues.watch("long"):
                finished += progress.last is not None
                if finished in marks and len(readings) < len(marks):
                    readings.append(resident_mb())

        server.run(run(), timeout=None)
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return readings


def rows(quick: bool) -> list[Row]:
    matches = 2_000 if quick else 10_000
    readings = rss_by_quarter(matches)
    warm, *quarters = readings
    growth = quarters[-1] - warm
    by_quarter = " → ".join(f"{value:.0f}" for value in readings)
    return [
        Row("memory", f"server RSS growth over {matches:,} Kingdoms matches after warm-up (instant bots, "
            f"refereed in the server; by quarter: {by_quarter} MB)", "MB", Spread.of([growth]),
            "RSS at the end of warm-up", Spread.of([warm]), goal="< 5 MB", met=growth < 5),
    ]  # fmt: skip


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "a server's memory over a long league")
