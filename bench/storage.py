"""What a Kingdoms ladder leaves in its database: bytes per 1,000 matches with the logs packed
(``ladder.compact_logs``), beside the very same matches with their logs as JSON, as revision
0003 stored them.

A server plays Kingdoms (2 players) between eight SDK random bots, in batches (one continuous
ladder league each). After each batch the SQLite database is copied twice (the backup API) and
each copy compacted (VACUUM): one as it is, one downgraded to revision 0003 first. A batch's growth
per 1,000 matches, the whole file (every table and index), is one sample. The match log's own
bytes are read from the last copies, one sample per match."""

from __future__ import annotations

import os

# Bots are forked from this process, which also runs gRPC; see kingmaker/server/__init__.py.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import shutil
import sqlite3
import sys
import tempfile
from contextlib import closing
from pathlib import Path

from alembic import command
from sqlalchemy import create_engine
from table import Row, Spread

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.ladder.storage.migrate import alembic_config
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer

SDK_RANDOM = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]
BOTS = 8
JSON_REVISION = "0003"
"""The last revision that stored logs as JSON."""
LOG_BYTES = "SELECT length(actions) + length(digests) + length(timings) FROM matchlog"


class StorageBench:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="km-storage-"))
        os.environ["KINGMAKER_HOME"] = str(self.folder)
        self.database = self.folder / "ladder.db"
        config = ServerConfig(
            address="127.0.0.1:0",
            database_url=f"sqlite:///{self.database}",
            admin_token="bench",
            jail=False,
            executor="local",
            concurrency=4,
        )
        self.server = BackgroundServer(config)
        self.names = [f"random-{i}" for i in range(BOTS)]
        for name in self.names:
            bots.register_bot(self.server.server.db, name, ["kingdoms"], command=SDK_RANDOM)
        self.batches = 0

    def play(self, matches: int) -> None:
        """One more batch of ``matches`` finished matches."""
        self.batches += 1
        name = f"batch-{self.batches}"
        db = self.server.server.db
        leagues.create_league(
            db, name, "kingdoms", self.names, format="ladder", max_matches=matches, seed=self.batches
        )

        async def run() -> None:
            async for _ in self.server.server.leagues.watch(name):
                pass

        self.server.run(run())
        assert league_progress(db, leagues.get_league(db, name).id)["finished"] == matches

    def sizes(self) -> tuple[int, int]:
        """The database's bytes now, compacted: as it is, and with its logs as JSON."""
        packed, as_json = self.folder / "packed.db", self.folder / "json.db"
        for copy in (packed, as_json):
            copy.unlink(missing_ok=True)
            with closing(sqlite3.connect(self.database)) as source, closing(sqlite3.connect(copy)) as target:
                source.backup(target)
                target.execute("PRAGMA journal_mode=DELETE")  # no WAL file: the size is the file's
        engine = create_engine(f"sqlite:///{as_json}")
        with engine.begin() as connection:
            command.downgrade(alembic_config(connection), JSON_REVISION)
        engine.dispose()
        for copy in (packed, as_json):
            with closing(sqlite3.connect(copy)) as connection:
                connection.execute("VACUUM")
        return packed.stat().st_size, as_json.stat().st_size

    def log_bytes(self) -> tuple[list[int], list[int]]:
        """Per match, its log's bytes in the last copies: packed, and as JSON."""
        found = []
        for copy in ("packed.db", "json.db"):
            with closing(sqlite3.connect(self.folder / copy)) as connection:
                found.append([row[0] for row in connection.execute(LOG_BYTES)])
        return found[0], found[1]

    def close(self) -> None:
        self.server.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def rows(quick: bool) -> list[Row]:
    batches, batch = (3, 100) if quick else (5, 300)
    bench = StorageBench()
    try:
        before = bench.sizes()
        packed_growth, json_growth = [], []
        for _ in range(batches):
            bench.play(batch)
            after = bench.sizes()
            packed_growth.append((after[0] - before[0]) * 1000 / batch / 1e6)
            json_growth.append((after[1] - before[1]) * 1000 / batch / 1e6)
            before = after
        packed_logs, json_logs = bench.log_bytes()
    finally:
        bench.close()
    per_thousand, reference = Spread.of(packed_growth), Spread.of(json_growth)
    log, log_reference = Spread.of([b / 1000 for b in packed_logs]), Spread.of([b / 1000 for b in json_logs])
    matches = f"{batches} batches of {batch}"
    return [
        Row("storage", f"database growth per 1,000 Kingdoms matches (2 players, SDK random bots; SQLite, "
            f"every table and index, VACUUMed; {matches})", "MB", per_thousand,
            "the same matches, logs as JSON (revision 0003)", reference,
            goal="≤ 4 MB (a million matches ≤ 4 GB)", met=per_thousand.median <= 4),
        Row("storage", f"Kingdoms match log, packed ({len(packed_logs)} matches)", "kB", log,
            "the same logs as JSON", log_reference, goal="≤ 3 kB", met=log.high <= 3),
    ]  # fmt: skip


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "what the database keeps")
