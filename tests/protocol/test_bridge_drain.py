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

import pytest
from protocol_support import PYTHON_RANDOM, kingmaker_command

from kingmaker.ladder.bots import bots
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.background import BackgroundServer
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant
from kingmaker.server.seats.sessions import BotSession
from kingmaker.v1 import arena_pb2

# Answers every request with its first legal action, slowly enough that a match lasts seconds.
UNHURRIED = (
    "import json, sys, time\n"
    "for line in sys.stdin:\n"
    "    if 'actionRequest' in line:\n"
    "        time.sleep(0.1)\n"
    "        print(json.dumps({'legalActionIndex': 0}), flush=True)\n"
)


# Promises to acknowledge match ends and does, a while after each: the bridge's last word on the
# stream comes well after the server sent the last match's end.
ACKNOWLEDGING_LATE = (
    "import json, sys, time\n"
    "print(json.dumps({'hello': {'acknowledgesMatchEnd': True}}), flush=True)\n"
    "for line in sys.stdin:\n"
    "    if 'actionRequest' in line:\n"
    "        time.sleep(0.1)\n"
    "        print(json.dumps({'legalActionIndex': 0}), flush=True)\n"
    "    elif 'matchEnd' in line:\n"
    "        time.sleep(0.5)\n"
    "        print(json.dumps({'matchEndSeen': {}}), flush=True)\n"
)


def drain_in_a_match(
    server: BackgroundServer, program: str
) -> tuple[MatchReport, subprocess.Popen[str], str]:
    """Bridge ``program`` as a remote bot, start a match with it, send the bridge SIGTERM once the
    match is under way; the match's report, the bridge and its stderr once it has exited."""
    info, token = bots.register_bot(server.server.db, "leaving", ["kingdoms"])
    command = [*kingmaker_command(), "bridge", "--server", server.address, "--token", token, "--",
               sys.executable, "-c", program]  # fmt: skip
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
    assert not server.server.pool.sessions_of(info.id), "its stream ended, taking no other match"
    return reports[0], bridge, stderr


def test_sigterm_finishes_the_match_in_play_then_the_bridge_exits_cleanly(server: BackgroundServer) -> None:
    report, bridge, stderr = drain_in_a_match(server, UNHURRIED)
    assert [seat.end_reason for seat in report.seats] == [EndReason.FINISHED, EndReason.FINISHED], stderr
    assert report.seats[0].strikes == 0
    assert bridge.returncode == 0, stderr
    assert "leaving after the match in play" in stderr
    assert "Traceback" not in stderr


def test_a_leaving_stream_ends_after_its_last_acknowledgment(
    server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # CI: the server ended a leaving stream as soon as it sent the last match's end; the bridge's
    # MatchEndSeen, written just then, failed, and gRPC's client reported INTERNAL in place of OK.
    heard: list[str] = []
    on_message = BotSession.on_message

    def hearing(session: BotSession, message: arena_pb2.BotMessage) -> None:
        if session.bot == "leaving" and message.WhichOneof("message") == "match_end_seen":
            heard.append(message.match_end_seen.match_id)
        on_message(session, message)

    monkeypatch.setattr(BotSession, "on_message", hearing)
    report, bridge, stderr = drain_in_a_match(server, ACKNOWLEDGING_LATE)
    assert heard == [report.match_id], "the stream was still open for the bot's last word"
    assert bridge.returncode == 0, stderr
    assert "INTERNAL" not in stderr
