"""Standings at scale: a ladder of 10,000 bots over 1,000,000 finished matches.

The database is built straight into the tables (bulk inserts), not by playing: standings read
the maintained rating rows, so what matters is their count and the bulk of the tables around
them. Measured: the admin API's GetStandings (top 100, through a real server) beside the same
rows by one raw SQL query, and `kingmaker ladder` as a user runs it (a new process each time)
beside a bare interpreter's start and the GetStandings call it makes, the three in turn."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
from table import Row, Spread, alternate

from kingmaker.ladder.storage.db import open_database
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

GAME = "kingdoms"


def build(path: Path, bots: int, matches: int) -> None:
    open_database(f"sqlite:///{path}").close()  # the schema, migrated
    rng = random.Random(1)
    with sqlite3.connect(path) as db:
        now = "2026-11-22 00:00:00.000000"
        db.executemany(
            "INSERT INTO bot (id, name, token_hash, enabled, created_at, token_rotated_at)"
            " VALUES (?,?,?,1,?,?)",
            ((i, f"bot-{i:05d}", f"hash-{i}", now, now) for i in range(1, bots + 1)),
        )
        db.executemany(
            "INSERT INTO botgame (bot_id, game) VALUES (?, ?)", ((i, GAME) for i in range(1, bots + 1))
        )
        rows = []
        for i in range(1, bots + 1):
            mu, sigma = rng.gauss(25, 4), rng.uniform(1, 8)
            played = 2 * matches // bots
            rows.append((i, GAME, mu, sigma, mu - 3 * sigma, played, played // 3, 2 * played, 0, now))
        db.executemany(
            "INSERT INTO rating (bot_id, game, mu, sigma, conservative, matches, wins, rank_sum, faults,"
            " updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        db.executemany(
            "INSERT INTO match (id, ordinal, game, players, seed, options, status, rated, created_at)"
            " VALUES (?, 0, ?, 2, ?, '{}', 'finished', 1, ?)",
            ((m, GAME, m, now) for m in range(1, matches + 1)),
        )
        db.executemany(
            "INSERT INTO matchseat (match_id, seat, bot_id, score, rank) VALUES (?,?,?,0,?)",
            ((m, s, 1 + (m * 2 + s) % bots, s + 1) for m in range(1, matches + 1) for s in (0, 1)),
        )


def raw_standings_ms(path: str | Path, limit: int) -> float:
    """The reference for every standings figure: the top ``limit`` rows in plain SQL, in ms."""
    tick = time.perf_counter()
    with sqlite3.connect(path) as db:
        db.execute(
            "SELECT r.bot_id, b.name, r.mu, r.sigma, r.conservative, r.matches, r.wins"
            " FROM rating r JOIN bot b ON b.id = r.bot_id WHERE r.game = ?"
            " ORDER BY r.conservative DESC, r.mu DESC, b.name LIMIT ?",
            (GAME, limit),
        ).fetchall()
    return (time.perf_counter() - tick) * 1000


def rows(quick: bool) -> list[Row]:
    bots, matches = (10_000, 100_000) if quick else (10_000, 1_000_000)
    runs = 5
    folder = Path(tempfile.mkdtemp(prefix="km-standings-"))
    path = folder / "big.db"
    started = time.perf_counter()
    build(path, bots, matches)
    built = time.perf_counter() - started
    os.environ["KINGMAKER_HOME"] = str(folder)
    server = BackgroundServer(ServerConfig(address="127.0.0.1:0", database_url=f"sqlite:///{path}",
                                           admin_token="bench", resume_leagues=False))  # fmt: skip
    metadata = (("authorization", "Bearer bench"),)
    found = []
    try:
        with grpc.insecure_channel(server.address) as channel:
            admin = admin_pb2_grpc.AdminStub(channel)

            def through_api() -> float:
                tick = time.perf_counter()
                answer = admin.GetStandings(admin_pb2.GetStandingsRequest(game=GAME), metadata=metadata)
                assert len(answer.standings) == 100 and answer.total == bots
                return (time.perf_counter() - tick) * 1000

            api, raw = alternate(through_api, lambda: raw_standings_ms(path, 100), runs)
            size = f"{bots:,} bots / {matches:,} matches"
            found.append(Row("standings", f"GetStandings top 100, {size}", "ms", api,
                             "raw SQL, same rows", raw, goal="< 50 ms", met=api.median < 50))  # fmt: skip

            kingmaker = Path(sys.executable).with_name("kingmaker")  # the console script a user runs
            ladder = [str(kingmaker)] if kingmaker.exists() else [sys.executable, "-m", "kingmaker"]
            environment = {**os.environ, "KINGMAKER_ADMIN_TOKEN": "bench"}

            def command() -> float:
                tick = time.perf_counter()
                done = subprocess.run([*ladder, "ladder", GAME, "-s", server.address],
                                      env=environment, capture_output=True, check=False)  # fmt: skip
                assert done.returncode == 0, done.stderr
                return (time.perf_counter() - tick) * 1000

            def bare_python() -> float:
                tick = time.perf_counter()
                subprocess.run([sys.executable, "-c", "pass"], check=True)
                return (time.perf_counter() - tick) * 1000

            def top_20() -> float:  # the call `kingmaker ladder` makes, from this process
                tick = time.perf_counter()
                admin.GetStandings(admin_pb2.GetStandingsRequest(game=GAME, limit=20), metadata=metadata)
                return (time.perf_counter() - tick) * 1000

            # In turn, so that the machine's load falls on all three alike.
            cli, start, call = [], [], []
            for _ in range(7):
                start.append(bare_python())
                call.append(top_20())
                cli.append(command())
            command_time, start_time = Spread.of(cli), Spread.of(start)
            found.append(Row("standings", f"`kingmaker ladder` (top 20), {size}", "ms", command_time,
                             "a bare interpreter (python -c pass)", start_time, goal="< 400 ms",
                             met=command_time.median < 400))  # fmt: skip
            found.append(Row("standings", "of which its GetStandings call (top 20, from this process)",
                             "ms", Spread.of(call), "`kingmaker ladder`", command_time))  # fmt: skip
            found.append(Row("standings", f"building the database, {size}", "s", Spread.of([built])))
    finally:
        server.stop()
    return found


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "standings at scale")
