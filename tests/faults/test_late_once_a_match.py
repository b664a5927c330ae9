"""A bot late once in every match is charged one strike in every match, and nothing else.

Before, the late reply itself counted as "a message nobody asked for", that count never started
again between matches, and the 21st closed the stream for FLOODING: an honest remote bot late once
a match played 20 matches with one strike each, then forfeited every seat on its stream, and
each forfeit counted towards its suspension. Here two remote bots play more matches than that
limit allows (``UNSOLICITED_LIMIT`` + 5) of a ladder league through a real server; the late reply
still reaches the server (after the strike).

The margins are wide both ways, since the machine may be loaded and a remote bot is charged the
wall time: the late reply comes 4 s into a 1.5 s decision, and an instant reply has 1.5 s, which
a reply delayed by a busy machine (up to 0.8 s seen at load 25) still makes. At 300 ms, such
delays alone struck instant replies: the verdict was true by the clock, the test was not."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.sessions import UNSOLICITED_LIMIT

MATCHES = UNSOLICITED_LIMIT + 5
CONTROL = TimeControl(decision_ms=1500, max_strikes=3)
LATE_SECONDS = "4"
BOTS = {
    "once-late": (sys.executable, "-m", "kingmaker.sample_bots.faulty.once_late_bot"),
    "instant": (sys.executable, "-m", "kingmaker.sample_bots.instant_bot"),
}


@pytest.fixture
def server(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    running = BackgroundServer(ServerConfig(address="127.0.0.1:0", time_control=CONTROL))
    try:
        yield running
    finally:
        running.stop()


def test_a_bot_late_once_a_match_gets_one_strike_a_match_for_every_match(
    server: BackgroundServer,
) -> None:
    db = server.server.db
    processes = []
    told: list[str] = []  # the late bot's stderr, read as it comes (so its pipe never fills)
    try:
        for name, command in BOTS.items():
            _, token = bots.register_bot(db, name, ["kingdoms"])
            environment = {**os.environ, "KINGMAKER_SERVER": server.address, "KINGMAKER_TOKEN": token}
            environment["LATE_SECONDS"] = LATE_SECONDS
            processes.append(subprocess.Popen(command, env=environment, stderr=subprocess.PIPE, text=True))
        stderr = processes[0].stderr
        assert stderr is not None
        reader = threading.Thread(target=lambda: told.extend(iter(stderr.readline, "")), daemon=True)
        reader.start()
        created = CliRunner().invoke(
            app,
            ["league", "create", "once", "--game", "kingdoms", "--format", "ladder", "--bot=once-late",
             "--bot=instant", "--max-matches", str(MATCHES), "--seed", "3", "--server", server.address],
        )  # fmt: skip
        assert created.exit_code == 0, created.output
        resumed = CliRunner().invoke(app, ["league", "resume", "once", "--server", server.address])
        assert resumed.exit_code == 0, resumed.output
        league_id = leagues.get_league(db, "once").id
        deadline = time.monotonic() + 220  # (+ 30 s below) under pytest-timeout's 300 s
        while league_progress(db, league_id)["finished"] < MATCHES:
            assert time.monotonic() < deadline, league_progress(db, league_id)
            time.sleep(0.5)
        # The last matches' late replies come after their matches: wait for them too.
        while sum("came after its deadline" in line for line in told) < MATCHES:
            assert time.monotonic() < deadline + 30, told[-5:]
            time.sleep(0.2)
    finally:
        for process in processes:
            process.terminate()
        processes[0].wait(timeout=30)  # its stderr is the reader's
        for process in processes[1:]:
            process.communicate(timeout=30)
    matches = [match for match in list_matches(db, league="once", limit=1000) if match.status == "finished"]
    assert len(matches) == MATCHES
    late_id = bots.get_bot(db, "once-late").id
    late = [seat for match in matches for seat in match.seats if seat.bot_id == late_id]
    assert [(seat.end_reason, seat.strikes) for seat in late] == [(EndReason.FINISHED, 1)] * MATCHES
    assert bots.get_bot(db, "once-late").suspended_reason is None
    # The late replies did come, and were told they were late (not that they flooded the stream).
    assert sum("came after its deadline" in line for line in told) == MATCHES
    assert not any("FLOODING" in line for line in told)
