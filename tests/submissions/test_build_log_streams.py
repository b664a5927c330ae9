"""A build says what it does while it runs: `submit` prints the build's log as it is written, each
line with the time since the submission, and WatchVersion carries it to the bot's owner (and the
admin) only. Before, `submit` printed "building" through a 7.5-minute C++ build and nothing else."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import grpc
import pytest
from submission_bots import PYTHON_BOT, write
from typer.testing import CliRunner

from kingmaker.ladder.bots import authors
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.cli.submit import build_clock
from kingmaker.server.jail.sandbox import bubblewrap
from kingmaker.server.web.console.data import watch_event
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")

SLOW_BUILD = 'echo "compiling part 1"; sleep 4; echo "compiling part 2"; sleep 4; echo "linked"'


def slow_bot(folder: Path) -> Path:
    manifest = f"run = \"python bot.py\"\nbuild = '{SLOW_BUILD}'\n"
    helpers = "def choose(count):\n    return 0\n"
    return write(folder, {"bot.py": PYTHON_BOT, "helpers.py": helpers, "kingmaker.toml": manifest})


def test_submit_prints_the_build_log_as_it_is_written_with_the_time_since(
    server: BackgroundServer, tmp_path: Path
) -> None:
    result = CliRunner().invoke(
        app,
        [
            "submit",
            str(slow_bot(tmp_path / "slow")),
            "--bot",
            "slow",
            "-g",
            "kingdoms",
            "--server",
            server.address,
        ],
    )
    assert result.exit_code == 0, result.stderr or result.stdout
    lines = result.stdout.splitlines()
    seconds = {}
    for text in ("compiling part 1", "compiling part 2", "linked"):
        line = next((line for line in lines if line.endswith(text)), None)
        assert line is not None, result.stdout
        found = re.match(r"\s*(\d+)s ", line)
        assert found, line
        seconds[text] = int(found.group(1))
    # printed as they came, not all at the end: the 8 s of sleep lie between the first and last
    assert seconds["compiling part 1"] < seconds["compiling part 2"] < seconds["linked"], seconds
    built = next(number for number, line in enumerate(lines) if "validating against random bots" in line)
    assert built > next(number for number, line in enumerate(lines) if line.endswith("linked"))
    assert re.match(r"\s*\d+s built", lines[built]), lines[built]


def _watch(address: str, token: str | None, into: list[admin_pb2.VersionInfo]) -> None:
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with grpc.insecure_channel(address) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        for message in stub.WatchVersion(
            admin_pb2.GetVersionRequest(bot="slow", number=1), metadata=metadata
        ):
            into.append(message)


def test_the_build_log_streams_to_its_owner_and_to_nobody_else(
    server: BackgroundServer, tmp_path: Path
) -> None:
    db = server.server.db
    _, ann = authors.add_author(db, "ann")
    _, ben = authors.add_author(db, "ben")
    folder = slow_bot(tmp_path / "slow")
    submit = [
        "submit",
        str(folder),
        "--bot",
        "slow",
        "-g",
        "kingdoms",
        "--no-wait",
        "--server",
        server.address,
    ]
    result = CliRunner().invoke(app, [*submit, "--admin-token", ann])
    assert result.exit_code == 0, result.stderr or result.stdout
    seen: dict[str, list[admin_pb2.VersionInfo]] = {"ann": [], "ben": [], "anyone": []}
    watchers = [
        threading.Thread(target=_watch, args=(server.address, token, seen[who]))
        for who, token in (("ann", ann), ("ben", ben), ("anyone", None))
    ]
    for watcher in watchers:
        watcher.start()
    for watcher in watchers:
        watcher.join(timeout=600)
    owner = [message for message in seen["ann"] if message.build_output]
    assert len(owner) >= 2, "the log comes in pieces, as it is written"
    assert owner[0].status == "building", "while it builds"
    printed = "".join(message.build_output for message in owner)
    assert printed.index("compiling part 1") < printed.index("compiling part 2") < printed.index("linked")
    assert printed.splitlines().count("compiling part 1") == 1, "each line once"
    clocks = [message for message in seen["ann"] if message.build_cpu_limit]
    assert clocks, "the owner sees where the build stands against its limit"
    assert {message.status for message in clocks} == {"building"}
    assert clocks[0].build_cpu_limit == 600
    assert max(message.build_wall_seconds for message in clocks) >= 4, "8 s of sleep"
    assert max(message.build_cpu_seconds for message in clocks) < 8, "sleeping costs no CPU time"
    for other in ("ben", "anyone"):
        assert seen[other], other
        assert seen[other][-1].status == seen["ann"][-1].status
        assert not any(message.build_output for message in seen[other]), other
        assert not any(message.build_cpu_limit for message in seen[other]), other


def test_the_build_clock_reads_the_same_in_the_cli_and_the_console() -> None:
    building = admin_pb2.VersionInfo(
        status="building", build_cpu_seconds=42, build_cpu_limit=600, build_wall_seconds=70
    )
    assert build_clock(building) == ", build 42 of 600 CPU-s in 1m10s"
    assert watch_event(building)["build_clock"] == "42 of 600 CPU-s, 1m10s"
    validating = admin_pb2.VersionInfo(status="validating", build_cpu_limit=600)
    assert build_clock(validating) == "" and watch_event(validating)["build_clock"] == ""
