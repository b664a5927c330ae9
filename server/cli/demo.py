"""``kingmaker demo``: the main job in one command, through a real server on loopback."""

from __future__ import annotations

import sys

import grpc
import typer

from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli.common import AdminClient, console
from kingmaker.server.cli.matches import print_record
from kingmaker.v1 import admin_pb2


def sample_bot(module: str) -> list[str]:
    """The command that runs a sample bot module with this interpreter."""
    return [sys.executable, "-m", f"kingmaker.sample_bots.{module}"]


def demo(
    seed: int = typer.Option(1, min=0, help="Seed of the demo match."),
) -> None:
    """Start a server on a free loopback port, play a 3-player Kingdoms match between the sample
    bots (three separate processes), print the final gold of each seat, and stop the server."""
    seats = [
        admin_pb2.MatchSeat(bot="greedy", command=sample_bot("kingdoms.greedy_bot")),
        admin_pb2.MatchSeat(bot="random-1", command=sample_bot("random_bot")),
        admin_pb2.MatchSeat(bot="random-2", command=sample_bot("random_bot")),
    ]
    server = BackgroundServer(ServerConfig(address="127.0.0.1:0"))
    try:
        console.print(f"server listening on {server.address}")
        with grpc.insecure_channel(server.address) as channel:
            client = AdminClient(channel, server.admin_token, server.address)
            with console.status("playing kingdoms: greedy vs random vs random"):
                record = client.call(
                    "RunMatch", admin_pb2.RunMatchRequest(game="kingdoms", seats=seats, seed=seed)
                )
        print_record(record, "gold")
    finally:
        server.stop()
