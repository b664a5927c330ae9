"""Speed of the engines, the codec and the referee, each measured several times (median shown).

    python bench/speed.py             # the whole table (about a minute)
    python bench/speed.py --quick     # fewer games and runs

Rows: a random game played by the engine alone; encoding one request (the seat's observation
and every legal action) as the referee does; and a league of two random bot processes through
a real server on loopback, counting bot decisions per second end to end.
"""

from __future__ import annotations

import os

# Bots are forked from this process, which also runs gRPC; see kingmaker/server/__init__.py.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import grpc
from rich.console import Console
from rich.table import Table

from kingmaker.games.registry import all_games
from kingmaker.sdk.codec import codec_for
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli.demo import sample_bot
from kingmaker.v1 import admin_pb2, admin_pb2_grpc


def engine_run(game_name: str, games: int) -> tuple[float, float, float]:
    """Milliseconds per random game, decisions per game, and microseconds to encode a request."""
    game = next(g for g in all_games() if g.spec.name == game_name)
    codec = codec_for(game_name)
    chooser = random.Random(0)
    decisions = 0
    encode_seconds = 0.0
    requests = 0
    started = time.perf_counter()
    for seed in range(games):
        state = game.new(game.spec.max_players, seed)
        while not state.is_over():
            joint = {seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()}
            state.apply(joint)
            decisions += 1
    elapsed = time.perf_counter() - started
    for seed in range(max(1, games // 10)):  # encoding, timed apart so it does not skew the games
        state = game.new(game.spec.max_players, seed)
        while not state.is_over():
            for seat in state.to_act():
                tick = time.perf_counter()
                codec.pack_observation(state.observation(seat))
                [codec.pack_action(action) for action in state.legal_actions(seat)]
                encode_seconds += time.perf_counter() - tick
                requests += 1
            state.apply({seat: chooser.choice(state.legal_actions(seat)) for seat in state.to_act()})
    return elapsed / games * 1000, decisions / games, encode_seconds / requests * 1e6


def server_run(matches: int) -> tuple[float, float]:
    """Matches per second and bot decisions per second, two random bot processes, one at a time."""
    with tempfile.TemporaryDirectory(prefix="kingmaker-speed-") as folder:
        os.environ["KINGMAKER_HOME"] = folder
        config = ServerConfig(
            address="127.0.0.1:0", database_url=f"sqlite:///{Path(folder) / 's.db'}", admin_token="t"
        )
        server = BackgroundServer(config)
        metadata = (("authorization", "Bearer t"),)
        try:
            with grpc.insecure_channel(server.address) as channel:
                admin = admin_pb2_grpc.AdminStub(channel)
                for name in ("a", "b"):
                    command = sample_bot("random_bot")
                    admin.AddBot(
                        admin_pb2.AddBotRequest(name=name, games=["kingdoms"], command=command),
                        metadata=metadata,
                    )
                league = admin_pb2.CreateLeagueRequest(
                    name="s", game="kingdoms", bots=["a", "b"], rounds=matches, seed=1
                )
                admin.CreateLeague(league, metadata=metadata)
                started = time.perf_counter()
                for _ in admin.RunLeague(
                    admin_pb2.RunLeagueRequest(name="s", concurrency=1), metadata=metadata
                ):
                    pass
                elapsed = time.perf_counter() - started
                listed = admin.ListMatches(
                    admin_pb2.ListMatchesRequest(league="s", limit=matches), metadata=metadata
                )
                decisions = sum(
                    len(
                        admin.GetMatch(
                            admin_pb2.GetMatchRequest(match_id=m.match_id), metadata=metadata
                        ).decisions
                    )
                    for m in listed.matches
                )
        finally:
            server.stop()
    return matches / elapsed, decisions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    runs, games, matches = (3, 50, 10) if args.quick else (5, 200, 30)
    table = Table(title=f"kingmaker speed (median of {runs} runs; max players per game)")
    for column in ("what", "per game / match", "decisions", "per request", "throughput"):
        table.add_column(column, justify="right")
    for game in all_games():
        results = [engine_run(game.spec.name, games) for _ in range(runs)]
        ms = statistics.median(r[0] for r in results)
        table.add_row(
            f"engine: {game.spec.name}",
            f"{ms:.2f} ms",
            f"{statistics.median(r[1] for r in results):.0f}",
            f"{statistics.median(r[2] for r in results):.0f} µs encode",
            f"{1000 / ms:.0f} games/s",
        )
    served = [server_run(matches) for _ in range(runs)]
    per_second = statistics.median(r[0] for r in served)
    table.add_row(
        "server: kingdoms, 2 bot processes",
        f"{1000 / per_second:.0f} ms",
        "",
        f"{1e6 / statistics.median(r[1] for r in served):.0f} µs/decision",
        f"{statistics.median(r[1] for r in served):.0f} decisions/s",
    )
    Console().print(table)


if __name__ == "__main__":
    main()
