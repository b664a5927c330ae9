"""Issue 47, finding 4: a version's validation and A/B duel matches were played and thrown away.
Now each is kept as one of the version's trial matches: listed by `bot trials` and replayed by
`replay trial:ID --bot NAME` for the bot's owner and the admin only, never rated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from sqlmodel import func, select
from submission_bots import sample_bot
from typer.testing import CliRunner

from kingmaker.ladder.bots import authors, versions
from kingmaker.ladder.ratings.standings import standings
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import BotFault, Match, Rating, RatingHistory
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.jail.sandbox import bubblewrap
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")

runner = CliRunner()
GAME = "kings_road"


def cli(server: BackgroundServer, token: str, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--server", server.address, "--token", token])
    return result.exit_code, result.stdout, result.stderr


def ok(server: BackgroundServer, token: str, *args: str) -> str:
    code, out, err = cli(server, token, *args)
    assert code == 0, err or out
    return out


def sample_bot_folder(folder: Path, module: str) -> Path:
    """A bot folder whose bot.py runs one of the sample bots, for King's Road only."""
    return sample_bot(folder, module, GAME)


def ladder_state(db: Database) -> dict[str, Any]:
    """Everything a rated result would move: standings, ratings and their history, matches, faults."""
    with db.read() as session:
        ratings = sorted((r.bot_id, r.game, r.mu, r.sigma, r.matches) for r in session.exec(select(Rating)))
        counts = {
            table.__name__: session.exec(select(func.count()).select_from(table)).one()
            for table in (Match, RatingHistory, BotFault)
        }
    return {"standings": standings(db, GAME), "ratings": ratings, **counts}


def test_validation_and_duel_matches_are_kept_for_their_owner_to_replay_and_never_rated(
    server: BackgroundServer, tmp_path: Path, far_apart_ab_gate: None
) -> None:
    db = server.server.db
    _, ann = authors.add_author(db, "ann")
    _, ben = authors.add_author(db, "ben")
    ok(server, ann, "submit", str(sample_bot_folder(tmp_path / "v1", "kingmaker.sample_bots.random_bot")),
       "--bot", "trier", "--ab")  # fmt: skip
    before = ladder_state(db)
    greedy = sample_bot_folder(tmp_path / "v2", "kingmaker.sample_bots.kings_road.greedy_bot")
    assert "trier version 2 is active" in ok(server, ann, "submit", str(greedy), "--bot", "trier", "--ab")

    # Never through the ladder's result path: no standing, rating, match or fault moved.
    assert ladder_state(db) == before

    listed = json.loads(ok(server, ann, "bot", "trials", "trier", "--version", "2", "--json", "-n", "1000"))
    by_purpose: dict[str, list[dict[str, Any]]] = {"validation": [], "duel": []}
    for trial in listed:
        by_purpose[trial["purpose"]].append(trial)
    version = versions.get_version(db, "trier", 2)
    validated = [match for match in version.validation if "game" in match and "players" in match]
    assert len(by_purpose["validation"]) == len(validated) >= 1
    duel = version.validation[-1]["ab"]
    assert duel["verdict"] == "H1" and len(by_purpose["duel"]) == duel["matches"] > 0
    assert {trial["version"] for trial in listed} == {2} and {trial["game"] for trial in listed} == {GAME}
    for trial in by_purpose["duel"]:  # the new version against the active one, each seat named
        assert sorted((seat["bot"], seat["version"]) for seat in trial["seats"]) == [
            ("trier", 1),
            ("trier", 2),
        ]
    assert any(seat["bot"].startswith("random-") for seat in by_purpose["validation"][0]["seats"])
    # Version 1's validation is kept too; every version's when no version is named.
    every = json.loads(ok(server, ann, "bot", "trials", "trier", "--json", "-n", "1000"))
    assert {trial["version"] for trial in every} == {1, 2} and len(every) > len(listed)
    assert "trial:" in ok(server, ann, "bot", "trials", "trier")

    for trial in (by_purpose["validation"][0], by_purpose["duel"][-1]):
        out = ok(server, ann, "replay", f"trial:{trial['id']}", "--bot", "trier", "--verify")
        assert f"verified: match trial:{trial['id']} replays to the recorded end" in out

    # Another author is refused, as is a caller with no token; a trial id of another bot is not found.
    code, out, err = cli(server, ben, "bot", "trials", "trier")
    assert code == 1 and "trier is not your bot" in err
    code, out, err = cli(server, ben, "replay", f"trial:{listed[0]['id']}", "--bot", "trier")
    assert code == 1 and "trier is not your bot" in err
    with grpc.insecure_channel(server.address) as channel:
        stub = admin_pb2_grpc.AdminStub(channel)
        for method, request in (
            ("ListTrialMatches", admin_pb2.ListTrialMatchesRequest(bot="trier")),
            ("GetTrialMatch", admin_pb2.GetTrialMatchRequest(bot="trier", trial_id=int(listed[0]["id"]))),
        ):
            with pytest.raises(grpc.RpcError) as refused:
                getattr(stub, method)(request, timeout=60)
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    ok(server, ben, "submit", str(sample_bot_folder(tmp_path / "b1", "kingmaker.sample_bots.random_bot")),
       "--bot", "bens")  # fmt: skip
    code, out, err = cli(server, ben, "replay", f"trial:{listed[0]['id']}", "--bot", "bens")
    assert code == 1 and f"bens has no trial match {listed[0]['id']}" in err
