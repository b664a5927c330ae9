"""A continuous ladder of remote bots, as a club runs one: Kingdoms, 2 seats, remote instant bots
(``remote_swarm.py``: legal action 0 at once, so the server's own work is what is measured), 4
matches at once, in the server process. Matches per minute at 10, 100 and 1,000 bots; each larger
ladder beside the 10-bot one, alternating: a ladder is resumed, left to warm up, measured over a
stretch of wall time, and paused (its matches in play finish) before the other is resumed.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from table import Row, alternate

from kingmaker.ladder import bots, league_lifecycle, leagues
from kingmaker.ladder.league_counts import league_progress
from kingmaker.ladder.models import MatchStatus
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer

GAME = "kingdoms"
CONCURRENCY = 4
WARM_UP_S = 3.0
SWARM = Path(__file__).with_name("remote_swarm.py")


class RemoteLadder:
    def __init__(self, size: int) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="km-ladder-"))
        os.environ["KINGMAKER_HOME"] = str(self.folder)
        config = ServerConfig(
            address="127.0.0.1:0",
            database_url=f"sqlite:///{self.folder / 'ladder.db'}",
            admin_token="bench",
            jail=False,
            resume_leagues=False,
        )
        self.server = BackgroundServer(config)
        db = self.server.server.db
        names, tokens = [], []
        for number in range(size):
            bot, token = bots.register_bot(db, f"remote-{number:04d}", [GAME])
            names.append(bot.name)
            tokens.append(token)
        (self.folder / "tokens.json").write_text(json.dumps(tokens))
        self.swarm = subprocess.Popen(
            [
                sys.executable,
                str(SWARM),
                "--server",
                self.server.address,
                "--tokens",
                str(self.folder / "tokens.json"),
            ]
        )
        deadline = time.monotonic() + 300
        while len(self.server.server.pool.sessions) < size:
            assert time.monotonic() < deadline, "the swarm's bots did not all connect"
            time.sleep(0.2)
        self.league_id = leagues.create_league(db, "ladder", GAME, names, format="ladder", seed=size).id

    def finished(self) -> int:
        return league_progress(self.server.server.db, self.league_id)[MatchStatus.FINISHED]

    def matches_per_minute(self, seconds: float) -> float:
        self.server.run(self.server.server.leagues.start("ladder", CONCURRENCY))
        time.sleep(WARM_UP_S)
        before, started = self.finished(), time.perf_counter()
        time.sleep(seconds)
        done, elapsed = self.finished() - before, time.perf_counter() - started
        league_lifecycle.pause_league(self.server.server.db, "ladder")
        while league_progress(self.server.server.db, self.league_id)[MatchStatus.RUNNING]:
            time.sleep(0.1)
        return 60 * done / elapsed

    def close(self) -> None:
        self.swarm.kill()
        self.swarm.wait()
        self.server.stop()


def rows(quick: bool) -> list[Row]:
    seconds, runs = (10.0, 3) if quick else (30.0, 5)
    small = RemoteLadder(10)
    found = []
    try:
        for size in (100, 1000):
            large = RemoteLadder(size)
            try:
                ours, theirs = alternate(
                    functools.partial(large.matches_per_minute, seconds),
                    functools.partial(small.matches_per_minute, seconds),
                    runs,
                )
            finally:
                large.close()
            what = f"continuous ladder, kingdoms 2p, {size:,} remote instant bots, {CONCURRENCY} at once"
            found.append(
                Row("ladder", what, "matches/min", ours, "10 bots", theirs, goal="≥ 0.9x of 10 bots",
                    met=ours.median >= 0.9 * theirs.median)
            )  # fmt: skip
    finally:
        small.close()
    return found


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "a continuous ladder of remote bots")
