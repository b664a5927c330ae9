"""A league as a user runs it: `kingmaker league run`, Kingdoms for 3 players, twelve SDK random
bots as managed bots, 4 matches at once; matches per minute, from the command's start to its end
(the CLI starting, the bots launching, every match played and stored). Beside it, in the same run,
the same league with instant bots (no SDK, legal action 0 at once): the difference is what the SDK
costs a Python bot author.

Twelve bots, because a bot plays one match at a time: with fewer than 4 x 3 bots, "4 at once" could
not happen (with four bots, only one 3-player match can be in play)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from table import Row, alternate

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.execution.executors import usable_cores

RANDOM = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]
INSTANT = [sys.executable, "-m", "kingmaker.sample_bots.instant_bot"]
WORKERS = usable_cores()
"""Worker processes for the default `serve` row: one per core it may use, as `serve` starts."""
BOTS = 12
"""Enough for 4 matches of 3 players at once: C(12, 3) = 220 matches a round."""


class LeagueBench:
    def __init__(self, command: list[str], label: str, workers: int = 0) -> None:
        self.folder = tempfile.mkdtemp(prefix="km-league-")
        os.environ["KINGMAKER_HOME"] = self.folder
        config = ServerConfig(
            address="127.0.0.1:0",
            database_url=f"sqlite:///{Path(self.folder) / 'league.db'}",
            admin_token="bench",
            jail=False,
            executor="processes" if workers else "local",
            workers=workers,
        )
        self.server = BackgroundServer(config)
        self.names = [f"{label}-{i}" for i in range(BOTS)]
        for name in self.names:
            bots.register_bot(self.server.server.db, name, ["kingdoms"], command=command)
        self.runs = 0

    def play(self, rounds: int) -> float:
        self.runs += 1
        name = f"league-{self.runs}"
        info = leagues.create_league(
            self.server.server.db, name, "kingdoms", self.names, players=3, rounds=rounds, seed=self.runs
        )
        matches = sum(league_progress(self.server.server.db, info.id).values())
        environment = {
            **os.environ,
            "KINGMAKER_ADMIN_TOKEN": "bench",
            "KINGMAKER_SERVER": self.server.address,
        }
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "kingmaker.server.cli", "league", "run", name, "--concurrency", "4"],
            env=environment, capture_output=True, check=False,
        )  # fmt: skip
        elapsed = time.perf_counter() - started
        assert done.returncode == 0, done.stderr.decode()[-500:]
        return 60 * matches / elapsed

    def close(self) -> None:
        self.server.stop()


def rows(quick: bool) -> list[Row]:
    rounds, runs = (1, 2) if quick else (2, 3)
    sdk, instant = LeagueBench(RANDOM, "random"), LeagueBench(INSTANT, "instant")
    try:
        ours, theirs = alternate(lambda: sdk.play(rounds), lambda: instant.play(rounds), runs)
    finally:
        sdk.close()
        instant.close()
    # The same league with its matches refereed in worker processes, beside the server alone.
    spread, alone = LeagueBench(RANDOM, "spread", workers=WORKERS), LeagueBench(RANDOM, "alone")
    try:
        workers, local = alternate(lambda: spread.play(rounds), lambda: alone.play(rounds), runs)
    finally:
        spread.close()
        alone.close()
    return [
        Row("league", "kingdoms, 3 players, SDK random bots, 4 at once, `league run`", "matches/min", ours,
            "same league, instant bots (no SDK)", theirs, goal="≥ 600", met=ours.median >= 600),
        Row("league", f"the same, default `serve` ({WORKERS} worker processes)", "matches/min", workers,
            "the same, `serve --executor local` (refereed in the server)", local,
            goal="≥ 1.3x local (issue 27)", met=workers.median >= 1.3 * local.median),
    ]  # fmt: skip


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "a league through the CLI")
