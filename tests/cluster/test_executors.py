"""The executors without a cluster: the match host referees launched bots on its own private
socket and keeps them warm; a match with a remote seat never leaves the central server; a Ray
executor that cannot run says so in one line and the server does not start."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.games.api import OptionValue
from kingmaker.ladder.matches.compact_logs import unpack_actions, unpack_digests
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.cli import app
from kingmaker.server.execution.executors import ExecutorError, LocalExecutor
from kingmaker.server.execution.match_host import HostSettings, MatchHost
from kingmaker.server.execution.process_executor import ProcessExecutor
from kingmaker.server.execution.ray_executor import RayExecutor
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant, Roster
from kingmaker.server.seats.sessions import SessionPool

RANDOM = (sys.executable, "-m", "kingmaker.sample_bots.random_bot")


def test_a_match_host_referees_launched_bots_and_keeps_them_warm() -> None:
    async def scenario() -> tuple[list[MatchReport], int, int, Path]:
        host = MatchHost(HostSettings(connect_timeout=15.0))
        try:
            await host.start()
            assert host.run_folder is not None and host.roster is not None
            entrants = [Entrant("a", bot_id=1, command=RANDOM), Entrant("b", bot_id=2, command=RANDOM)]
            reports = []
            for seed in (1, 2):
                reports.append(await host.play("kingdoms", entrants, seed, {}, TimeControl(), f"m{seed}"))
            kept = sum(len(items) for items in host.roster._idle.values())
            played = await host.retire({1, 2})
            return reports, kept, played, host.run_folder
        finally:
            await host.close()

    reports, kept, played, folder = asyncio.run(scenario())
    for report in reports:
        assert [seat.end_reason for seat in report.seats] == [EndReason.FINISHED] * 2
        # What a host sends the server: the log packed, its actions and digests in it alone.
        assert report.packed_log is not None and not report.decisions
        assert unpack_actions(report.game, report.packed_log.actions)
        assert all(unpack_digests(report.packed_log.digests))
    assert kept == 2, "both bots were kept for the next match"
    assert played == 2
    assert not folder.exists(), "closing the host removes its socket and bot folders"


class Recording(LocalExecutor):
    def __init__(self) -> None:
        super().__init__(Roster(SessionPool(), "unused"))
        self.games: list[str] = []

    async def play(
        self,
        game: str,
        entrants: Sequence[Entrant],
        seed: int,
        options: Mapping[str, OptionValue],
        control: TimeControl,
        match_id: str,
    ) -> MatchReport:
        self.games.append(match_id)
        raise RuntimeError("played here")


@pytest.mark.parametrize("kind", ["ray", "processes"])
def test_a_match_with_a_remote_seat_is_refereed_on_the_central_server(kind: str) -> None:
    local = Recording()
    # Never started: no cluster, no worker processes needed.
    executor = (
        RayExecutor("127.0.0.1:1", local, HostSettings())
        if kind == "ray"
        else ProcessExecutor(2, HostSettings(), local)
    )
    entrants = [Entrant("managed", bot_id=1, command=RANDOM), Entrant("remote", bot_id=2)]
    with pytest.raises(RuntimeError, match="played here"):
        asyncio.run(executor.play("kingdoms", entrants, 1, {}, TimeControl(), "m1"))
    assert local.games == ["m1"]


def test_with_no_worker_process_running_a_match_is_refereed_on_the_central_server() -> None:
    local = Recording()
    executor = ProcessExecutor(2, HostSettings(), local)  # never started: no worker runs
    entrants = [Entrant("a", bot_id=1, command=RANDOM), Entrant("b", bot_id=2, command=RANDOM)]
    with pytest.raises(RuntimeError, match="played here"):
        asyncio.run(executor.play("kingdoms", entrants, 1, {}, TimeControl(), "m2"))
    assert local.games == ["m2"]


def test_an_unreachable_ray_head_is_one_clear_error() -> None:
    executor = RayExecutor("127.0.0.1:1", Recording(), HostSettings())
    with pytest.raises(ExecutorError, match=r"cannot join the Ray cluster at 127\.0\.0\.1:1"):
        asyncio.run(executor.start())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--executor", "spark"], "choose one of local, processes, ray"),
        (["--executor", "local", "--workers", "3"], "--workers is for --executor processes"),
        (["--executor", "ray"], "needs --ray-address"),
        (["--executor", "ray", "--ray-address", "127.0.0.1:1"], "cannot join the Ray cluster"),
        (["--executor", "ray", "--ray-address", "nowhere"], "must be HOST:PORT"),
        (["--log-level", "loud"], "--log-level 'loud': choose one of debug, info, warning"),
    ],
)
def test_serve_refuses_an_executor_or_log_level_it_cannot_use(
    kingmaker_home: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    database = tmp_path / "k.db"
    command = ["serve", "--address", f"unix:{tmp_path / 's.sock'}", "--database-url", f"sqlite:///{database}"]
    result = CliRunner().invoke(app, [*command, *args])
    assert result.exit_code != 0
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "s.sock").exists()


def test_a_worker_process_that_cannot_start_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that exits before saying it is up (here: a program that is not Python) stops the
    server's start with one clear error, and leaves no worker process behind."""
    monkeypatch.setattr(sys, "executable", "/bin/true")
    executor = ProcessExecutor(2, HostSettings(), Recording())
    with pytest.raises(ExecutorError, match="cannot start a worker process"):
        asyncio.run(executor.start())
    assert executor.workers == []
