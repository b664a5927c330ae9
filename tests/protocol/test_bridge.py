"""`kingmaker bridge`: bots that speak JSON lines on stdin/stdout play through the real server.

The bridged sample bot is awk, a language with no gRPC library here. The bad paths are small
shell programs: one that dies, one that writes garbage, one that never answers; each must cost
only its own seat, with the same outcome a gRPC bot would get.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from protocol_support import AWK_BOT, PYTHON_RANDOM, bridged, end_reasons, run_match

from kingmaker.games.registry import game_names
from kingmaker.server.background import BackgroundServer

# Reads every line and answers each request with garbage.
GARBAGE = 'while read -r line; do case "$line" in *actionRequest*) echo "{not json";; esac; done'
# Reads every line and answers nothing.
SILENT = "cat > /dev/null"
# Reads the welcome line and the match start, then exits.
DIES = "read -r line; read -r line; exit 3"
# Reads the welcome line and the match start, then dies of SIGSEGV.
SEGFAULTS = "read -r line; read -r line; kill -SEGV $$"


def awk_command() -> list[str]:
    awk = shutil.which("awk")
    if awk is None:
        pytest.skip("awk is not installed")
    # mawk reads a pipe in blocks unless told to read it line by line (see the bot's comments).
    interactive = ["-W", "interactive"] if "mawk" in Path(awk).resolve().name else []
    return [awk, *interactive, "-f", str(AWK_BOT)]


@pytest.mark.parametrize("game", game_names())
def test_the_awk_bot_finishes_a_match_through_the_bridge(server: BackgroundServer, game: str) -> None:
    record = run_match(server, game, [("awk", bridged(*awk_command())), ("python-random", PYTHON_RANDOM)])
    assert end_reasons(record) == ["FINISHED", "FINISHED"]
    assert record.seats[0].strikes == 0
    sources = {action.source for joint in record.decisions for action in joint.actions if action.seat == 0}
    assert sources == {"bot"}, "every decision of the awk seat was its own"


@pytest.mark.parametrize(
    ("program", "reason", "detail"),
    [
        (GARBAGE, "MALFORMED_REPLY", "forfeited after 3 strikes"),
        (SILENT, "TIMEOUT", "forfeited after 3 strikes"),
        # The bridge ends as its program did, before its stream closes: the server sees the crash,
        # and which. Before, 5 runs in 7 read "disconnected", and a SIGSEGV "exited with code 1".
        (DIES, "CRASHED", "the bot's process exited with code 3"),
        (SEGFAULTS, "CRASHED", "the bot's process was killed by SIGSEGV"),
    ],
    ids=["garbage", "silent", "dies", "segfaults"],
)
def test_a_faulty_bridged_program_forfeits_only_its_own_seat(
    server: BackgroundServer, program: str, reason: str, detail: str
) -> None:
    seats = [
        ("python-a", PYTHON_RANDOM),
        ("faulty", bridged("sh", "-c", program)),
        ("python-b", PYTHON_RANDOM),
    ]
    record = run_match(server, "kingdoms", seats, decision_ms=300)
    outcome = end_reasons(record)
    assert outcome == ["FINISHED", reason, "FINISHED"], record.seats[1].detail
    assert record.seats[1].detail.startswith(detail)
    assert record.seats[1].rank == 3, "a faulty seat ranks last"
    assert record.seats[1].strikes == (0 if reason == "CRASHED" else 3)
