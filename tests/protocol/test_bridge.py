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
# Reads the welcome line, then exits.
DIES = "read -r line; exit 3"


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
    ("program", "reasons"),
    [
        (GARBAGE, {"MALFORMED_REPLY"}),
        (SILENT, {"TIMEOUT"}),
        # The bridge closes its stream and exits when its program does: to the server the bot went
        # away, as a crash if it sees the process gone first, else as a closed stream.
        (DIES, {"CRASHED", "DISCONNECTED"}),
    ],
    ids=["garbage", "silent", "dies"],
)
def test_a_faulty_bridged_program_forfeits_only_its_own_seat(
    server: BackgroundServer, program: str, reasons: set[str]
) -> None:
    seats = [
        ("python-a", PYTHON_RANDOM),
        ("faulty", bridged("sh", "-c", program)),
        ("python-b", PYTHON_RANDOM),
    ]
    record = run_match(server, "kingdoms", seats, decision_ms=300)
    outcome = end_reasons(record)
    assert outcome[1] in reasons
    assert outcome[0] == outcome[2] == "FINISHED"
    assert record.seats[1].rank == 3, "a faulty seat ranks last"
    if reasons != {"CRASHED", "DISCONNECTED"}:
        assert record.seats[1].strikes == 3
