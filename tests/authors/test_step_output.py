"""An owner reads, at each step of a match, what their bot printed on stderr while answering that
request; another author and anyone else read none of it; nothing shows while a match sharing the
seed is not over; and a bot printing megabytes per step stores no more than the bound."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from sqlmodel import select
from stepping_bot import STEPPING
from typer.testing import CliRunner

from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.matches.matches import schedule_match, void_match
from kingmaker.ladder.step_output import SEAT_BYTES, STEP_BYTES, unpack_steps
from kingmaker.ladder.storage.models import SeatLog
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

runner = CliRunner()


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def get_match(address: str, token: str | None, match_id: str) -> admin_pb2.MatchRecord:
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    with grpc.insecure_channel(address) as channel:
        answer: admin_pb2.MatchRecord = admin_pb2_grpc.AdminStub(channel).GetMatch(
            admin_pb2.GetMatchRequest(match_id=match_id), metadata=metadata
        )
    return answer


@pytest.fixture
def played(server: BackgroundServer, tmp_path: Path, config: Path, request: Any) -> Iterator[dict[str, Any]]:
    """ann's stepping bot (seat 0) against ben's stepping bot, a stored one-off on seed 5."""
    loud = getattr(request, "param", 0)
    db = server.server.db
    ann, ann_token = authors.add_author(db, "ann")
    ben, ben_token = authors.add_author(db, "ben")
    script = tmp_path / "stepping.py"
    script.write_text(STEPPING)
    ids = {}
    for name, author, noise in (("annbot", ann, loud), ("benbot", ben, 0)):
        command = [sys.executable, str(script), str(noise)]
        ids[name] = bots.register_bot(db, name, ["kingdoms"], command, author_id=author.id)[0].id
    admin = ["--server", server.address, "--admin-token", server.admin_token]
    code, out, err = cli(
        "match", "run", "kingdoms", "--bot", "annbot", "--bot", "benbot", "--seed", "5", *admin
    )
    assert code == 0, out + err
    match_id = out.split(" match ", 1)[1].split()[0]
    token_file = Path(os.environ["KINGMAKER_HOME"]) / "admin-token"
    token_file.rename(token_file.with_name("away"))
    try:
        yield {"match": match_id, "ann": ann_token, "ben": ben_token, "server": server, "ids": ids}
    finally:
        token_file.with_name("away").rename(token_file)


def own_decisions(record: admin_pb2.MatchRecord, seat: int) -> list[int]:
    """The decisions at which the seat acted, from the match's own log (its bot never faults, so
    it was asked at each)."""
    return [
        number
        for number, joint in enumerate(record.decisions)
        if any(action.seat == seat for action in joint.actions)
    ]


def test_the_owner_reads_each_steps_own_line(played: dict[str, Any]) -> None:
    address = played["server"].address
    record = get_match(address, played["ann"], played["match"])
    assert record.revealed and record.decisions
    (log,) = record.seat_logs  # ann's seat only
    assert log.bot == "annbot"
    asked = own_decisions(record, log.seat)
    assert [step.decision for step in log.steps] == asked, "one entry per step the bot was asked at"
    for number, step in enumerate(log.steps, start=1):
        assert step.text.startswith(f"step line {number} of request "), step.text
        assert step.text.count("\n") == 1, "exactly that step's line"
        assert step.bytes == len(step.text.encode())

    code, out, err = cli(
        "match", "show", played["match"], "--steps", "--server", address, "--token", played["ann"]
    )
    assert code == 0, err
    assert f"step {asked[0]} (" in out and "step line 1 of request" in out
    assert f"step {asked[-1]} (" in out and f"step line {len(asked)} of request" in out
    code, out, err = cli(
        "match", "show", played["match"], "--steps", "--json", "--server", address, "--token", played["ann"]
    )
    assert code == 0, err
    (seat,) = json.loads(out)["steps"]
    assert [step["decision"] for step in seat["steps"]] == asked


def test_nobody_else_reads_them(played: dict[str, Any]) -> None:
    address = played["server"].address
    as_ben = get_match(address, played["ben"], played["match"])
    assert [log.bot for log in as_ben.seat_logs] == ["benbot"], "ben reads his own seat only"
    anyone = get_match(address, None, played["match"])
    assert not anyone.seat_logs
    code, out, err = cli(
        "match", "show", played["match"], "--steps", "--server", address, "--token", played["ben"]
    )
    assert code == 0, err
    assert "seat 0, annbot" not in out and "seat 1, benbot, stderr per step" in out
    code, out, err = cli("match", "show", played["match"], "--steps", "--json", "--server", address)
    assert code == 0, err
    assert json.loads(out)["steps"] == [] and "step line" not in out


def test_nothing_shows_while_a_twin_is_not_over(played: dict[str, Any]) -> None:
    server = played["server"]
    db = server.server.db
    with db.transaction() as session:
        twin = schedule_match(
            session, game="kingdoms", seed=5, options={}, bot_ids=list(played["ids"].values())
        )
        twin_id = twin.id
    hidden = get_match(server.address, played["ann"], played["match"])
    assert not hidden.revealed and not hidden.seat_logs
    code, out, err = cli(
        "match", "show", played["match"], "--steps", "--server", server.address, "--token", played["ann"]
    )
    assert code == 0, err
    assert "step line" not in out and "no step output: " in out and "seed" in out
    assert twin_id is not None
    void_match(db, twin_id, "not played")
    shown = get_match(server.address, played["ann"], played["match"])
    assert shown.revealed and shown.seat_logs[0].steps


@pytest.mark.parametrize("played", [1], indirect=True)
def test_a_bot_printing_megabytes_stores_at_most_the_bound(played: dict[str, Any]) -> None:
    db = played["server"].server.db
    with db.read() as session:
        row = session.exec(
            select(SeatLog).where(
                SeatLog.match_id == int(played["match"]), SeatLog.bot_id == played["ids"]["annbot"]
            )
        ).one()
        blob = row.steps
    steps = unpack_steps(blob)
    assert blob is not None and len(blob) <= SEAT_BYTES
    kept = sum(len(step.text.encode()) for step in steps)
    assert kept <= SEAT_BYTES and all(len(step.text.encode()) <= STEP_BYTES for step in steps)
    assert steps[0].bytes > 1024 * 1024 and steps[0].cut, "how much it printed, and that it was cut"
    assert kept == SEAT_BYTES, "the budget spent, not more"
    assert steps[-1].bytes > 1024 * 1024 and not steps[-1].text, "later steps: their size, no text"
    record = get_match(played["server"].address, played["ann"], played["match"])
    assert record.seat_logs[0].steps[0].bytes == steps[0].bytes
