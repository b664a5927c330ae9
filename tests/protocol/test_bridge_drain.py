"""SIGTERM to `kingmaker bridge` leaves gracefully: the match in play is finished, no other is
taken, and the bridge exits with its program's status. Before, the bridge had no drain and a busy
ladder started the next match milliseconds after the last, so leaving was always a fault."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from protocol_support import PYTHON_RANDOM, kingmaker_command

from kingmaker.ladder.bots import bots
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.background import BackgroundServer
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant

# Answers every request with its first legal action, slowly enough that a match lasts seconds.
UNHURRIED = (
    "import json, sys, time\n"
    "for line in sys.stdin:\n"
    "    if 'actionRequest' in line:\n"
    "        time.sleep(0.1)\n"
    "        print(json.dumps({'legalActionIndex': 0}), flush=True)\n"
)


def test_sigterm_finishes_the_match_in_play_then_the_bridge_exits_cleanly(server: BackgroundServer) -> None:
    info, token = bots.register_bot(server.server.db, "leaving", ["kingdoms"])
    command = [*kingmaker_command(), "bridge", "--server", server.address, "--token", token, "--",
               sys.executable, "-c", UNHURRIED]  # fmt: skip
    bridge = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=os.environ)
    entrants = [Entrant("leaving", bot_id=info.id), Entrant("random", command=tuple(PYTHON_RANDOM))]
    control = TimeControl(decision_ms=2000, max_strikes=3)
    reports: list[MatchReport] = []
    match = play_match(server.server.roster, "kingdoms", entrants, 5, {}, control, "drain")
    playing = threading.Thread(target=lambda: reports.append(server.run(match, timeout=240)))
    playing.start()
    try:
        deadline = time.monotonic() + 60
        while not any(session.matches for session in server.server.pool.sessions_of(info.id)):
            assert time.monotonic() < deadline, "the bridged bot never started its match"
            time.sleep(0.05)
        bridge.send_signal(signal.SIGTERM)
        session = server.server.pool.sessions_of(info.id)[0]
        while not session.draining:
            assert time.monotonic() < deadline, "the bridge did not say goodbye"
            time.sleep(0.01)
        assert session.matches and not session.has_room, "offered no new match while it plays this one"
        playing.join(240)
        _, stderr = bridge.communicate(timeout=60)
    finally:
        if bridge.poll() is None:
            bridge.kill()
    assert [seat.end_reason for seat in reports[0].seats] == [EndReason.FINISHED, EndReason.FINISHED], stderr
    assert reports[0].seats[0].strikes == 0
    assert bridge.returncode == 0, stderr
    assert "leaving after the match in play" in stderr
    assert "Traceback" not in stderr
    assert not server.server.pool.sessions_of(info.id), "its stream ended, taking no other match"
