"""Running a match through the real server's Admin API, as the CLI does, for the protocol tests."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import grpc
import pytest

from kingmaker.server.background import BackgroundServer
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, common_pb2

from support import REPO, bot_command

NODE_BOT_DIR = REPO / "sample_bots" / "node"
AWK_BOT = REPO / "sample_bots" / "bridged" / "random_bot.awk"
PYTHON_RANDOM = bot_command("random_bot.py")
FINISHED = common_pb2.END_REASON_FINISHED


def kingmaker_command() -> list[str]:
    """The `kingmaker` command of this environment (the script beside this interpreter)."""
    script = Path(sys.executable).with_name("kingmaker")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from kingmaker.server.cli import main; main()"]


def bridged(*program: str) -> list[str]:
    """The command that plays ``program`` through `kingmaker bridge`."""
    return [*kingmaker_command(), "bridge", "--", *program]


def node_bot_command() -> list[str]:
    """`node bot.js`, or a skip when the Node.js packages are not installed (.ci/node-and-buf does)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    if not (NODE_BOT_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        pytest.skip("sample_bots/node/node_modules is missing: run .ci/node-and-buf (npm ci) first")
    return [node, str(NODE_BOT_DIR / "bot.js")]


def run_match(
    server: BackgroundServer,
    game: str,
    seats: Sequence[tuple[str, Sequence[str]]],
    seed: int = 7,
    decision_ms: int = 1000,
) -> admin_pb2.MatchRecord:
    """Play one match between launched commands and return its record."""
    request = admin_pb2.RunMatchRequest(
        game=game,
        seats=[admin_pb2.MatchSeat(bot=name, command=list(command)) for name, command in seats],
        seed=seed,
        time_control=common_pb2.TimeControl(decision_ms=decision_ms, max_strikes=3),
    )
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        metadata = (("authorization", f"Bearer {server.admin_token}"),)
        record: admin_pb2.MatchRecord = admin.RunMatch(request, metadata=metadata, timeout=120)
    return record


def end_reasons(record: admin_pb2.MatchRecord) -> list[str]:
    return [common_pb2.EndReason.Name(seat.end_reason).removeprefix("END_REASON_") for seat in record.seats]
