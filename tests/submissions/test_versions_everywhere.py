"""A built version plays wherever the server plays matches: in worker processes (which read the
server's built folders) and on a host with a cache of its own (a Ray node), sent the packed folder
once per hash."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from submission_bots import c_bot, python_bot
from typer.testing import CliRunner

from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.building.build_store import BuildOutputRefused, BuildStore
from kingmaker.server.building.builds import build_folder
from kingmaker.server.cli import app
from kingmaker.server.execution.match_host import HostSettings, MatchHost
from kingmaker.server.execution.process_executor import ProcessExecutor
from kingmaker.server.jail.sandbox import SandboxPolicy, bubblewrap
from kingmaker.server.new_versions.version_checks import RANDOM_BOT
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")
runner = CliRunner()


@pytest.fixture
def server_with_workers(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    config = ServerConfig(
        address="127.0.0.1:0", time_control=TimeControl(decision_ms=400), executor="processes", workers=1
    )
    running = BackgroundServer(config)
    try:
        yield running
    finally:
        running.stop()


def ok(server: BackgroundServer, *args: str) -> str:
    result = runner.invoke(app, [*args, "--server", server.address])
    assert result.exit_code == 0, result.stderr or result.stdout
    return result.stdout


def test_submitted_versions_play_a_league_in_worker_processes(
    server_with_workers: BackgroundServer, tmp_path: Path
) -> None:
    server = server_with_workers
    ok(server, "submit", str(python_bot(tmp_path / "p")), "--bot", "helped", "-g", "kingdoms")
    ok(server, "submit", str(c_bot(tmp_path / "c")), "--bot", "cbot", "-g", "kingdoms")
    ok(server, "league", "create", "workers", "-g", "kingdoms", "--bot", "helped", "--bot", "cbot")
    ok(server, "league", "run", "workers")
    matches = list_matches(server.server.db, league="workers")
    assert matches and all(match.status == "finished" for match in matches)
    assert all(
        seat.end_reason is EndReason.FINISHED and seat.version == 1 for m in matches for seat in m.seats
    )
    executor = server.server.executor
    assert isinstance(executor, ProcessExecutor) and executor.workers[0].played >= 1  # played there


def test_a_host_with_its_own_cache_gets_the_packed_folder_once_and_plays_it(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = BuildStore(tmp_path / "server-builds")
        built = await build_folder(c_bot(tmp_path / "c"), store, SandboxPolicy())
        assert built.ok and built.build_hash is not None and built.manifest is not None
        host = MatchHost(HostSettings(build_root=str(tmp_path / "node-cache")))
        try:
            await host.start()
            assert not await host.has_build(built.build_hash)
            await host.add_build(built.build_hash, store.pack(built.build_hash))
            assert await host.has_build(built.build_hash)
            assert os.listdir(tmp_path / "node-cache") == [built.build_hash]
            mine = Entrant("cbot", 7, built.manifest.run, None, 1, built.manifest.protocol, built.build_hash)
            report = await host.play(
                "kingdoms",
                [mine, Entrant("random", command=RANDOM_BOT)],
                3,
                {},
                TimeControl(decision_ms=400),
                "m1",
            )
            assert [seat.end_reason for seat in report.seats] == [EndReason.FINISHED, EndReason.FINISHED]
        finally:
            await host.close()
        with pytest.raises(BuildOutputRefused, match="unpacked as"):
            BuildStore(tmp_path / "elsewhere").add_packed("0" * 64, store.pack(built.build_hash))

    asyncio.run(scenario())
