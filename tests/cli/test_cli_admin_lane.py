"""The local command line talks to the server of its home on its admin lane (the Unix socket the
home lock names, ``services.lane``), where its calls do not wait behind the bots'; elsewhere, and
for another server, on the address it was given; and `serve --admin-address` serves the lane on
TCP too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from typer.testing import CliRunner

from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.locations import admin_lane
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

from support import free_port

runner = CliRunner()


@pytest.fixture
def running(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    config = ServerConfig(
        address="127.0.0.1:0",
        admin_address=f"127.0.0.1:{free_port()}",
        admin_token="admin",
        jail=False,
        resume_leagues=False,
    )
    server = BackgroundServer(config)
    try:
        yield server
    finally:
        server.stop()


def test_a_command_of_the_servers_home_goes_through_its_lane(
    running: BackgroundServer, kingmaker_home: Path
) -> None:
    lane = running.server.lane
    assert lane is not None
    assert admin_lane(running.address) == f"unix:{kingmaker_home / 'admin.sock'}"
    assert admin_lane("127.0.0.1:1") is None, "another server's address is reached where it was given"
    before = lane.handed
    done = runner.invoke(
        app,
        [
            "bot",
            "add",
            "lane-bot",
            "--game",
            "kingdoms",
            "--server",
            running.address,
            "--admin-token",
            "admin",
        ],
    )
    assert done.exit_code == 0, done.output
    listed = runner.invoke(app, ["bot", "list", "--server", running.address, "--admin-token", "admin"])
    assert listed.exit_code == 0 and "lane-bot" in listed.output, listed.output
    assert lane.handed >= before + 1, "`bot add` came through the lane (`bot list` is read on it)"


def test_with_the_server_stopped_no_lane_is_named(kingmaker_home: Path) -> None:
    server = BackgroundServer(
        ServerConfig(address="127.0.0.1:0", admin_token="admin", jail=False, resume_leagues=False)
    )
    address = server.address
    assert admin_lane(address) is not None
    server.stop()
    assert admin_lane(address) is None


def test_the_admin_address_serves_the_lane_on_tcp(running: BackgroundServer) -> None:
    lane = running.server.lane
    assert lane is not None
    [_, tcp] = running.server.lane_addresses
    assert tcp == running.server.config.admin_address
    before = lane.handed
    with grpc.insecure_channel(tcp) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        assert stub.ListGames(admin_pb2.ListGamesRequest(), timeout=60).games  # (read on the lane)
        assert not stub.ListLeagues(admin_pb2.ListLeaguesRequest(), timeout=60).leagues  # (handed over)
        with pytest.raises(grpc.RpcError) as refused:
            stub.ListBots(
                admin_pb2.ListBotsRequest(), metadata=(("authorization", "Bearer nope"),), timeout=60
            )
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert lane.handed == before + 1
