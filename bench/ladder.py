"""A continuous ladder of remote bots, as a club runs one: Kingdoms, 2 seats, remote instant bots
(``remote_swarm.py``: legal action 0 at once, so the server's own work is what is measured), 4
matches at once, in the server process. Matches per minute at 10, 100 and 1,000 bots; each larger
ladder beside the 10-bot one, alternating: a ladder is resumed, left to warm up, measured over a
stretch of wall time, and paused (its matches in play finish) before the other is resumed.

The database's cost (``--postgres``): the central server's own CPU per match (the process of a
real ``kingmaker serve``: claims, results, ratings, logs, the progress stream; the matches are
refereed in its worker processes) with its ladder in PostgreSQL beside the same in SQLite,
alternating: one league of 16 managed instant bots at 8 matches at once, a round robin of 120
matches per run (``referee.ServedReferee``). PostgreSQL runs on loopback: the server at
``$KINGMAKER_TEST_POSTGRES_URL`` (an admin URL, as ``.ci/postgres`` exports), else one started
here as the tests start theirs (``tests/postgres_server.py``: Debian's package), always stopped.

    .venv/bin/python bench/ladder.py [--quick]     # the ladder's size rows
    .venv/bin/python bench/ladder.py --postgres    # PostgreSQL beside SQLite only
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

from proc_stats import cpu_seconds
from referee import INSTANT, ServedReferee
from sqlmodel import select
from table import Row, alternate, alternate_with_load

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import league_lifecycle, leagues
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.ladder.storage.models import Match, MatchStatus
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer

GAME = "kingdoms"
CONCURRENCY = 4
WARM_UP_S = 3.0
SWARM = Path(__file__).with_name("remote_swarm.py")
TESTS = Path(__file__).resolve().parent.parent / "tests"


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


class ServerCpu:
    """A served league (``ServedReferee``: 16 managed instant bots, 8 at once) in one database,
    measured as its server process's CPU per match."""

    def __init__(self, url: str | None) -> None:
        self.served = ServedReferee(GAME, 8, INSTANT, [], url=url)

    def ms_per_match(self, matches: int) -> float:
        pid = self.served.server.process.pid
        before, finished = cpu_seconds(pid), self._finished()
        self.served.play(matches)
        return 1000 * (cpu_seconds(pid) - before) / (self._finished() - finished)

    def _finished(self) -> int:
        with self.served.db.read() as session:
            return len(session.exec(select(Match.id).where(Match.status == MatchStatus.FINISHED)).all())

    def close(self) -> None:
        self.served.close()


def postgres_rows(runs: int = 3, matches: int = 120) -> list[Row]:
    """The server's CPU per match with PostgreSQL beside SQLite, alternating."""
    sys.path.insert(0, str(TESTS))
    from postgres_server import Databases, PostgresServer

    admin = os.environ.get("KINGMAKER_TEST_POSTGRES_URL")
    started = None
    if not admin:
        started = PostgresServer()
        started.start()
        admin = started.url()
    databases = Databases(admin)
    servers: list[ServerCpu] = []
    try:
        servers.append(ServerCpu(databases.new_database()))
        servers.append(ServerCpu(None))
        ours, theirs, load = alternate_with_load(
            functools.partial(servers[0].ms_per_match, matches),
            functools.partial(servers[1].ms_per_match, matches),
            runs,
        )
    finally:
        for server in servers:
            server.close()
        databases.drop_all()
        if started is not None:
            started.stop()
    what = "server process CPU per match, PostgreSQL (loopback), kingdoms, 16 instant bots, 8 at once"
    return [
        Row("ladder", what, "ms", ours, "the same in SQLite", theirs, goal="≤ 1.2x of SQLite",
            met=ours.median <= 1.2 * theirs.median, load=load)
    ]  # fmt: skip


if __name__ == "__main__":
    from table import print_rows

    if "--postgres" in sys.argv:
        print_rows(postgres_rows(), "the central server's cost per match, PostgreSQL beside SQLite")
    else:
        print_rows(rows("--quick" in sys.argv), "a continuous ladder of remote bots")
