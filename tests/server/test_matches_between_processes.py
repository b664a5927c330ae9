"""Full matches between real bot processes through a real server, faulty bots included."""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest

from kingmaker.games.registry import get_game
from kingmaker.ladder.outcomes import EndReason
from kingmaker.sdk.codec import codec_for
from kingmaker.server.background import BackgroundServer
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, common_pb2

from support import ad_hoc, bot_command, play

RANDOM = bot_command("random_bot.py")
GREEDY = bot_command("kingdoms/greedy_bot.py")
CONTROL = TimeControl(decision_ms=400, max_strikes=3)


def run_match(server: BackgroundServer, seats: list[Entrant], seed: int = 7) -> MatchReport:
    return play(server, "kingdoms", seats, seed, CONTROL)


def replayed_scores(report: MatchReport) -> tuple[int, ...]:
    """Re-run the engine from the report's seed and actions."""
    state = get_game(report.game).new(len(report.seats), report.seed, report.options)
    for decisions in report.decisions:
        state.apply({decision.seat: decision.action for decision in decisions})
    assert state.is_over()
    return state.result().scores


def test_three_bots_play_kingdoms_through_the_admin_api(server: BackgroundServer) -> None:
    seats = [
        admin_pb2.MatchSeat(bot="random-a", command=list(RANDOM)),
        admin_pb2.MatchSeat(bot="greedy", command=list(GREEDY)),
        admin_pb2.MatchSeat(bot="random-b", command=list(RANDOM)),
    ]
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        metadata = (("authorization", f"Bearer {server.admin_token}"),)
        record = admin.RunMatch(
            admin_pb2.RunMatchRequest(game="kingdoms", seats=seats, seed=11), metadata=metadata
        )
        again = admin.GetMatch(admin_pb2.GetMatchRequest(match_id=record.match_id), metadata=metadata)
    assert again == record
    assert [seat.bot for seat in record.seats] == ["random-a", "greedy", "random-b"]
    assert all(seat.end_reason == common_pb2.END_REASON_FINISHED for seat in record.seats)
    assert all(seat.strikes == 0 for seat in record.seats)
    assert sorted(seat.rank for seat in record.seats)[0] == 1
    # Every decision the bots made is recorded, and replays to the same gold.
    codec = codec_for("kingdoms")
    state = get_game("kingdoms").new(3, record.seed)
    for decision in record.decisions:
        assert all(action.source == "bot" for action in decision.actions)
        state.apply({action.seat: codec.unpack_action(action.action) for action in decision.actions})
    assert state.result().scores == tuple(seat.score for seat in record.seats)


@pytest.mark.parametrize(
    ("bot_file", "reason", "error_code"),
    [
        ("faulty/slow_bot.py", EndReason.TIMEOUT, "LATE_REPLY"),
        ("faulty/illegal_bot.py", EndReason.ILLEGAL_ACTION, "ILLEGAL_ACTION"),
        ("faulty/garbage_bot.py", EndReason.MALFORMED_REPLY, "MALFORMED_REPLY"),
        ("faulty/crash_bot.py", EndReason.CRASHED, None),
    ],
)
def test_a_faulty_bot_forfeits_and_the_others_finish(
    server: BackgroundServer, bot_file: str, reason: EndReason, error_code: str | None
) -> None:
    seats = [
        ad_hoc("random-a", RANDOM),
        ad_hoc("faulty", bot_command(bot_file)),
        ad_hoc("random-b", RANDOM),
    ]
    report = run_match(server, seats)
    faulty = report.seats[1]
    assert faulty.end_reason is reason
    assert faulty.rank == 3, "a faulty seat ranks last"
    for sound in (report.seats[0], report.seats[2]):
        assert sound.end_reason is EndReason.FINISHED
        assert sound.strikes == 0
        assert sound.rank in (1, 2)
    if error_code is not None:
        assert faulty.strikes == CONTROL.max_strikes
        # The bot was told, on its own stream, what it did wrong (the SDK prints errors to stderr).
        assert error_code in faulty.stderr_tail
        if reason is not EndReason.TIMEOUT:
            # (A slow bot is still computing its late answer when the match ends: on a loaded
            # machine it may not read its forfeit before it is stopped.)
            assert "FORFEITED" in faulty.stderr_tail
    # Faulty decisions were played for the seat (defaults until it forfeits, then the fallback
    # policy to the end), and the match still replays from seed and actions.
    sources = {d.source for decisions in report.decisions for d in decisions if d.seat == 1}
    assert "fallback" in sources
    if error_code is not None:
        assert "default" in sources
    assert replayed_scores(report) == tuple(seat.score for seat in report.seats)


def test_a_bot_that_never_connects_is_played_by_the_fallback(server: BackgroundServer) -> None:
    sleeper = ad_hoc("sleeper", (bot_command("random_bot.py")[0], "-c", "import time; time.sleep(30)"))
    # Long enough for the random bot to start on a loaded machine (1 s was not, at load 30: it
    # missed its hello too), short of the sleeper's 30 s.
    report = play(server, "kingdoms", [ad_hoc("random", RANDOM), sleeper], 3, CONTROL, connect_timeout=8.0)
    assert report.seats[1].end_reason is EndReason.NEVER_CONNECTED
    assert "did not say hello" in report.seats[1].detail
    assert report.seats[0].end_reason is EndReason.FINISHED
    assert report.seats[0].rank == 1
    assert {d.source for decisions in report.decisions for d in decisions if d.seat == 1} == {"fallback"}


def test_the_server_still_plays_after_faults(server: BackgroundServer) -> None:
    run_match(server, [ad_hoc("crash", bot_command("faulty/crash_bot.py")), ad_hoc("random", RANDOM)])
    report = run_match(server, [ad_hoc("a", RANDOM), ad_hoc("b", RANDOM)], seed=99)
    assert all(seat.end_reason is EndReason.FINISHED for seat in report.seats)
    assert not server.server.pool.sessions, "every session is closed once its match is over"


def test_a_seat_command_relative_to_its_working_directory_starts_there(
    server: BackgroundServer, tmp_path: Path
) -> None:
    """`./bot` with a working directory is the bot in that folder (it was refused as missing)."""
    folder = tmp_path / "mine"
    folder.mkdir()
    script = folder / "bot"
    run = "runpy.run_module('kingmaker.sample_bots.random_bot', run_name='__main__')"
    script.write_text(f"#!{sys.executable}\nimport runpy\n{run}\n")
    script.chmod(0o755)
    seats = [
        admin_pb2.MatchSeat(bot="mine", command=["./bot"], working_directory=str(folder)),
        admin_pb2.MatchSeat(bot="other", command=[sys.executable, "-m", "kingmaker.sample_bots.random_bot"]),
    ]
    metadata = (("authorization", f"Bearer {server.admin_token}"),)
    with grpc.insecure_channel(server.address) as channel:
        admin = admin_pb2_grpc.AdminStub(channel)
        record = admin.RunMatch(admin_pb2.RunMatchRequest(game="kings_road", seats=seats), metadata=metadata)
        assert [seat.end_reason for seat in record.seats] == [common_pb2.END_REASON_FINISHED] * 2
        seats[0].command[0] = "./missing"
        with pytest.raises(grpc.RpcError) as refused:
            admin.RunMatch(admin_pb2.RunMatchRequest(game="kings_road", seats=seats), metadata=metadata)
    assert f"cannot start './missing' in {folder}: no such executable" in refused.value.details()
