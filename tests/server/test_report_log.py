"""A log packed where its match was refereed (a worker: ``MatchHost.play``) is stored exactly as one
the central server packs: the same three blobs, the same log read back, the same summary for the
league's progress stream (issue 50: the server no longer packs what a worker holds already)."""

from __future__ import annotations

import dataclasses
import hashlib
import random
from pathlib import Path

import pytest

from kingmaker.games.registry import get_game
from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.matches.compact_logs import pack_log
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.records import actions_to_data
from kingmaker.ladder.result_batch import StoredResult, finish_matches
from kingmaker.ladder.storage.db import open_database
from kingmaker.ladder.storage.models import MatchLog
from kingmaker.server.refereeing.referee import Decision, MatchReport, SeatReport
from kingmaker.server.refereeing.report_log import as_sent, log_digests, log_timings, packed_log
from kingmaker.server.scheduling.rated import outcome


def played_report(seed: int) -> MatchReport:
    """A whole Kingdoms match of two seats played by the engine, with times charged, a default
    action now and then, and a digest per observation, as a referee reports it."""
    game = get_game("kingdoms")
    state = game.new(2, seed, {})
    rng = random.Random(seed)
    decisions = []
    shown: list[list[str]] = [[], []]
    while not state.is_over():
        joint = []
        for seat in state.to_act():
            shown[seat].append(hashlib.sha256(f"{seed}:{seat}:{len(shown[seat])}".encode()).hexdigest())
            action = rng.choice(state.legal_actions(seat))
            source = "default" if rng.random() < 0.05 else "bot"
            joint.append(Decision(seat, action, source, round(rng.uniform(0.01, 40), 2)))
        state.apply({decision.seat: decision.action for decision in joint})
        decisions.append(tuple(joint))
    result = state.result()
    seats = tuple(
        SeatReport(seat, f"bot{seat}", result.scores[seat], result.ranks[seat], 0, EndReason.FINISHED, "")
        for seat in range(2)
    )
    think = tuple(
        tuple(
            d.elapsed_ms for joint in decisions for d in joint if d.seat == seat and d.elapsed_ms is not None
        )
        for seat in range(2)
    )
    return MatchReport(
        match_id="1", game="kingdoms", edition=game.spec.edition, seed=seed, options={}, seats=seats,
        decisions=tuple(decisions), observation_digests=tuple(map(tuple, shown)), started_at=100.0,
        finished_at=103.25, result=result, think_ms=think,
    )  # fmt: skip


def stored(folder: Path, report: MatchReport) -> tuple[tuple[bytes, bytes, bytes], object, StoredResult]:
    """The log row, the log read back and the stored result of ``report`` in a new database."""
    db = open_database(f"sqlite:///{folder / 'ladder.db'}")
    try:
        names = [register_bot(db, f"bot{seat}", ["kingdoms"])[0].name for seat in range(2)]
        ticket = mark_running(db, create_match(db, "kingdoms", names, seed=report.seed).match_id)
        (result,) = finish_matches(db, [outcome(ticket, report)])
        assert isinstance(result, StoredResult)
        with db.read() as session:
            row = session.get(MatchLog, ticket.match_id)
            assert row is not None
            blobs = (row.actions, row.digests, row.timings)
        return blobs, match_log(db, ticket.match_id), result
    finally:
        db.close()


@pytest.mark.parametrize("seed", [1, 7])
def test_a_log_packed_by_the_worker_is_stored_as_the_server_would_store_it(tmp_path: Path, seed: int) -> None:
    report = played_report(seed)
    assert any(decision.source == "default" for joint in report.decisions for decision in joint)
    (tmp_path / "server").mkdir()
    (tmp_path / "worker").mkdir()
    by_server = stored(tmp_path / "server", report)
    sent = as_sent(report)
    assert sent.packed_log == packed_log(report)
    assert sent.decisions == () and sent.observation_digests == (), "the log holds them: sent once"
    by_worker = stored(tmp_path / "worker", sent)
    assert by_worker[0] == by_server[0], "the same three blobs"
    assert by_worker[1] == by_server[1], "the same log read back"
    assert by_worker[2].summary is not None and by_server[2].summary is not None
    assert by_worker[2].summary.think == by_server[2].summary.think != ()
    assert by_worker[2].counts == by_server[2].counts


def test_the_actions_written_once_per_action_object_pack_as_written_anew() -> None:
    # ``log_actions`` keeps each action object's data: a log packed from kept data (and from
    # equal actions that are other objects) holds the very bytes of one written afresh.
    report = played_report(3)
    fresh = pack_log(report.game, fresh_actions(report), log_digests(report), log_timings(report))
    assert packed_log(report) == fresh  # the first time, the data is written
    assert packed_log(report) == fresh  # the second, all of it is found
    copied = tuple(
        tuple(dataclasses.replace(d, action=dataclasses.replace(d.action)) for d in joint)
        for joint in report.decisions
    )
    assert packed_log(dataclasses.replace(report, decisions=copied)) == fresh


def fresh_actions(report: MatchReport) -> list[dict[str, object]]:
    return actions_to_data([{d.seat: d.action for d in joint} for joint in report.decisions])
