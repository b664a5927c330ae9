"""The fault suite: one faulty bot per fault, each against a sound bot through a real server.

For each: the error the bot was sent on its stream (it prints what it receives to stderr), the
recorded end of its seat, the other seat's finished game, and a server that still answers a
health check and plays a fresh match afterwards.
"""

from __future__ import annotations

import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.deadlines import TimeControl

from support import ad_hoc, bot_command, play

pytestmark = pytest.mark.faults

RANDOM = bot_command("random_bot.py")
CONTROL = TimeControl(decision_ms=400, max_strikes=3)
SLEEPER = (sys.executable, "-c", "import time; time.sleep(60)")
# After FLOODING the seat is told how it ended, then the stream closes with a status that says why.
FLOOD_ENDS = ["FORFEITED", "match_end: END_REASON_PROTOCOL_ERROR", "stream ended: RESOURCE_EXHAUSTED"]


CONNECTS_S = 60
NEVER_CONNECTS_S = 15


@pytest.mark.parametrize(
    ("command", "reason", "told"),
    [
        pytest.param(SLEEPER, EndReason.NEVER_CONNECTED, None, id="never-connects"),
        pytest.param(bot_command("faulty/disconnect_bot.py"), EndReason.DISCONNECTED, None, id="disconnects"),
        pytest.param(
            bot_command("faulty/hang_bot.py"), EndReason.TIMEOUT, ["LATE_REPLY", "FORFEITED"], id="hangs"
        ),
        pytest.param(bot_command("faulty/crash_bot.py"), EndReason.CRASHED, None, id="crashes"),
        pytest.param(
            bot_command("faulty/double_reply_bot.py"),
            EndReason.PROTOCOL_ERROR,
            ["was already answered", "FLOODING", *FLOOD_ENDS],
            id="replies-twice",
        ),
        pytest.param(
            bot_command("faulty/foreign_reply_bot.py"),
            EndReason.PROTOCOL_ERROR,
            ["UNKNOWN_REQUEST", "is not open on this stream", "FORFEITED"],
            id="replies-for-others",
        ),
        pytest.param(
            bot_command("faulty/flood_bot.py"),
            EndReason.PROTOCOL_ERROR,
            ["FLOODING", *FLOOD_ENDS],
            id="floods",
        ),
        pytest.param(
            bot_command("faulty/oversized_bot.py"),
            EndReason.DISCONNECTED,
            ["RESOURCE_EXHAUSTED", "larger than max"],
            id="oversized-message",
        ),
        pytest.param(
            bot_command("faulty/garbage_bot.py"),
            EndReason.MALFORMED_REPLY,
            ["MALFORMED_REPLY"],
            id="malformed",
        ),
        pytest.param(
            bot_command("faulty/undecodable_bot.py"),
            EndReason.MALFORMED_REPLY,
            [
                "MALFORMED_REPLY: a message on the stream could not be decoded",
                "FORFEITED",
                "match_end: END_REASON_MALFORMED_REPLY",
                "stream ended: INVALID_ARGUMENT",
            ],
            id="undecodable-bytes",
        ),
        pytest.param(
            bot_command("faulty/illegal_bot.py"), EndReason.ILLEGAL_ACTION, ["ILLEGAL_ACTION"], id="illegal"
        ),
        pytest.param(bot_command("faulty/slow_bot.py"), EndReason.TIMEOUT, ["LATE_REPLY"], id="answers-late"),
    ],
)
def test_each_fault_gets_its_error_its_outcome_and_spares_the_rest(
    server: BackgroundServer, command: tuple[str, ...], reason: EndReason, told: list[str] | None
) -> None:
    report = play(
        server,
        "kingdoms",
        [ad_hoc("sound", RANDOM), ad_hoc("faulty", command)],
        3,
        CONTROL,
        # Long enough for a Python bot to start on a machine at load 40 (3 s was not: "did not say
        # hello within 3 s"), short enough that the bot that never connects costs little.
        connect_timeout=NEVER_CONNECTS_S if reason is EndReason.NEVER_CONNECTED else CONNECTS_S,
    )
    sound, faulty = report.seats
    assert faulty.end_reason is reason, faulty.detail
    assert faulty.rank == 2, "a faulty seat ranks last"
    assert sound.end_reason is EndReason.FINISHED
    assert sound.strikes == 0
    assert sound.rank == 1
    assert all(d.source == "bot" for decisions in report.decisions for d in decisions if d.seat == 0)
    for sentence in told or []:
        assert sentence in faulty.stderr_tail
    assert_server_still_serves(server)


def assert_server_still_serves(server: BackgroundServer) -> None:
    with grpc.insecure_channel(server.address) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service=""), timeout=5
        )
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    fresh = play(server, "kingdoms", [ad_hoc("a", RANDOM), ad_hoc("b", RANDOM)], 99, CONTROL)
    assert [seat.end_reason for seat in fresh.seats] == [EndReason.FINISHED, EndReason.FINISHED]
    assert not server.server.pool.sessions, "no stream outlives its match"


@pytest.mark.parametrize(
    ("command", "detail"),
    [
        pytest.param(bot_command("faulty/crash_bot.py"), "the bot's process exited with code 3", id="exit-3"),
        pytest.param(
            bot_command("faulty/segfault_bot.py"), "the bot's process was killed by SIGSEGV", id="sigsegv"
        ),
    ],
)
def test_a_crash_says_the_exit_code_or_the_signal(
    server: BackgroundServer, command: tuple[str, ...], detail: str
) -> None:
    report = play(server, "kingdoms", [ad_hoc("sound", RANDOM), ad_hoc("faulty", command)], 3, CONTROL)
    faulty = report.seats[1]
    assert faulty.end_reason is EndReason.CRASHED
    assert faulty.detail == detail
