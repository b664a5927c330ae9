"""The protocol conformance suite: every row of docs/protocol.md's table "Misbehaviour, row by
row" (``server/refereeing/misbehaviour.py``), played through gRPC and through the bridge, by a bot the server
launched and by a remote one, against a sound bot through one real server. Each asserts the row:
the seat's end reason (and, for a crash, the process's end), its strikes, the errors the bot was
sent in order, and for a remote bot the status its stream ended with and its process's exit
status (a bridged program's own, passed on by the bridge).

The doc's table is checked against the Python one, so the two cannot drift."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from protocol_support import kingmaker_command

from kingmaker.ladder.bots import bots
from kingmaker.sample_bots.faulty.misbehaving import READY
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.refereeing import misbehaviour
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.refereeing.misbehaviour import MAX, ROWS, Misbehaviour, markdown_table
from kingmaker.server.refereeing.referee import MatchReport, SeatReport
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant

from support import REPO, bot_command

pytestmark = pytest.mark.faults

# A remote bot is charged wall time, transport included, and the server's loop stalls no longer
# cover it (only its own delays do): on a loaded machine a bridged remote bot's sound reply has
# taken over 450 ms, so the clock is wide enough that only the rows' deliberate lateness is late.
CONTROL = TimeControl(decision_ms=1000, max_strikes=2)
MISBEHAVING = (sys.executable, "-m", "kingmaker.sample_bots.faulty.misbehaving")
SOUND = Entrant("sound", command=bot_command("instant_bot.py"))
CASES = [
    pytest.param(row, transport, kind, id=f"{row.key}-{transport}-{kind}")
    for row in ROWS
    for transport in ("grpc", "bridge")
    if not (row.grpc_only and transport == "bridge") and not (row.bridge_only and transport == "grpc")
    for kind in ("launched", "remote")
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """One server for the whole suite (each case registers its own bot)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KINGMAKER_HOME", str(tmp_path_factory.mktemp("conformance") / "home"))
        patch.delenv("KINGMAKER_ADMIN_TOKEN", raising=False)
        running = BackgroundServer(
            ServerConfig(address="127.0.0.1:0", time_control=CONTROL, connect_timeout=30.0)
        )
        try:
            yield running
        finally:
            running.stop()


def command(row: Misbehaviour, transport: str, *bridge_options: str) -> tuple[str, ...]:
    if transport == "grpc":
        return (*MISBEHAVING, row.key)
    return (*kingmaker_command(), "bridge", *bridge_options, "--", *MISBEHAVING, row.key, "--json-lines")


def play_launched(
    server: BackgroundServer, row: Misbehaviour, transport: str
) -> tuple[SeatReport, str, None]:
    faulty = Entrant("faulty", command=command(row, transport))
    report = play(server, [faulty, SOUND], f"{row.key}-{transport}-launched")
    seat = report.seats[0]
    return seat, seat.stderr + seat.stderr_tail, None


def play_remote(
    server: BackgroundServer, row: Misbehaviour, transport: str, suffix: str = ""
) -> tuple[SeatReport, str, int]:
    name = f"{row.key}-{transport}{suffix}"
    info, token = bots.register_bot(server.server.db, name, ["kingdoms"])
    environment = {**os.environ, "KINGMAKER_SERVER": server.address, "KINGMAKER_TOKEN": token}
    bot = subprocess.Popen(command(row, transport), env=environment, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(bot.stderr.readline, "")))  # type: ignore[union-attr]
    reader.start()
    try:
        if transport == "bridge":
            # A remote bot is charged wall time from its first request on: under load (12 busy
            # processes on 2 cores) the bridge said hello, and got that request, over a second
            # before its program had started, and was struck for it. An author starts the bridge
            # before their bot plays; here the match waits for the program likewise.
            deadline = time.monotonic() + 120
            while READY not in "".join(lines) and bot.poll() is None:
                assert time.monotonic() < deadline, "the bridged program never started"
                time.sleep(0.05)
        report = play(server, [Entrant(name, bot_id=info.id), SOUND], f"{name}-remote")
        # Still connected, waiting for a match (a bridge whose program hung up ends by itself).
        if row.stream in ("", "OK") and not row.process and (row.key, transport) != ("hangs-up", "bridge"):
            deadline = time.monotonic() + 60
            while row.key != "hangs-up" and not any("match_end" in line for line in lines):
                assert time.monotonic() < deadline, "the bot never read its match_end"
                time.sleep(0.05)
            bot.send_signal(signal.SIGTERM)
        bot.wait(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        reader.join(30)
    stderr = "".join(lines)
    return report.seats[0], stderr, bot.returncode


def play(server: BackgroundServer, entrants: list[Entrant], match_id: str) -> MatchReport:
    match = play_match(server.server.roster, "kingdoms", entrants, 11, {}, CONTROL, match_id)
    report = server.run(match, timeout=240)
    assert report.seats[1].end_reason.name == "FINISHED", "the sound seat is not touched"
    return report


@pytest.mark.parametrize(("row", "transport", "kind"), CASES)
def test_each_misbehaviour_ends_as_the_doc_says(
    server: BackgroundServer, row: Misbehaviour, transport: str, kind: str
) -> None:
    if kind == "launched":
        seat, told, status = play_launched(server, row, transport)
    else:
        seat, told, status = play_remote(server, row, transport)
    expected = row.ends_as if kind == "launched" else row.remote_ends_as
    assert seat.end_reason.name == expected, (seat.detail, told)
    assert seat.strikes == (CONTROL.max_strikes if row.strikes == MAX else int(row.strikes)), told
    if row.process:
        process = f"the bot's process {row.process}" if kind == "launched" else "the stream closed"
        assert seat.detail == process
    # The errors, in order (a later code is looked for after the earlier one). A launched bot is
    # stopped when its match is over, maybe before it has read them all: its first, at least.
    position = 0
    for code in row.errors if kind == "remote" else row.errors[:1]:
        found = told.find(f"ERROR_CODE_{code}: ", position)
        assert found >= 0, f"{code} not told after position {position}: {told}"
        position = found
    # A launched bot is stopped as soon as its match is over, maybe before it has read how its
    # stream ended; a remote one reads it.
    if row.stream not in ("", "OK") and kind == "remote":
        line = "stream ended: " if transport == "grpc" else "the server ended the stream: "
        assert line + row.stream in told, (status, told)
    for status_name in ("RESOURCE_EXHAUSTED", "INVALID_ARGUMENT"):
        if status_name != row.stream:
            assert (
                f"ended the stream: {status_name}" not in told and f"stream ended: {status_name}" not in told
            )
    assert "Traceback" not in told, "the bridge writes one line, never a traceback"
    if status is not None:
        assert status == expected_exit_status(row, transport), told


def expected_exit_status(row: Misbehaviour, transport: str) -> int:
    """A remote bot's exit status: a crash's own (passed on exactly by the bridge), 1 after a stream
    end that is not OK; one still connected was sent SIGTERM (the bridge then drains and exits as
    its program did, 0; the plain gRPC bot dies of it). A bridge whose program hung up kills it
    once its stream is over, and ends as it did."""
    if row.process:
        return 3 if "code 3" in row.process else -signal.SIGSEGV
    if row.stream not in ("", "OK"):
        return 1
    if row.key == "hangs-up":
        return -signal.SIGKILL if transport == "bridge" else -signal.SIGTERM
    return 0 if transport == "bridge" else -signal.SIGTERM


def test_the_doc_table_is_the_python_table() -> None:
    doc = (REPO / "docs" / "protocol.md").read_text()
    section = doc.split("### Misbehaviour, row by row", 1)[1]
    table = re.search(r"^\|.*(?:\n\|.*)*", section, re.MULTILINE)
    assert table is not None, "docs/protocol.md has no misbehaviour table"
    assert table.group(0) == markdown_table(), (
        "docs/protocol.md's misbehaviour table differs from server/refereeing/misbehaviour.py: "
        "paste `python -m kingmaker.server.refereeing.misbehaviour` into it"
    )


# What each fault is told in: the words that name it, in the match record (the seat's strikes,
# which `match show` prints), in the `Error` the bot is sent, and so in a bridged program's stderr
# (its owner's log, or its remote author's terminal).
WORDS = {
    "wrong-field": "unknown field `actionIndex` (a reply holds `legalActionIndex` or `action`",
    "wrong-request-id": "the bot's reply named request 1000000003 of match",
    "silent": "no reply within the decision's 1000 ms limit",
}


@pytest.mark.parametrize("kind", ["launched", "remote"])
@pytest.mark.parametrize("key", sorted(WORDS))
def test_a_strike_is_told_in_the_same_words_everywhere(server: BackgroundServer, key: str, kind: str) -> None:
    row = misbehaviour.row(key)
    if kind == "launched":
        seat, told, _ = play_launched(server, row, "bridge")
    else:
        seat, told, _ = play_remote(server, row, "bridge", suffix="-words")  # a bot of its own
    first = seat.strike_log[0].detail
    assert WORDS[key] in first, first
    assert f": {first}; a default action was played (strike 1 of 2)" in told, told
    if key == "wrong-field":
        assert first.endswith('"actionIndex": 0}'), "the line is quoted"
    if key == "silent":
        assert "(the server waited " in first and "nothing at all came from the bot" in first


def test_a_line_of_output_is_quoted_in_the_owners_log_and_costs_nothing(server: BackgroundServer) -> None:
    row = misbehaviour.row("prints-output")
    seat, told, _ = play_launched(server, row, "bridge")
    assert seat.strikes == 0 and seat.end_reason.name == "FINISHED"
    quote = "not a reply, kept as the program's output: PHP Warning:  Undefined array key 3 in /bot/bot.php"
    assert quote in told
