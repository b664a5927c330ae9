"""A competition with tiers survives SIGKILL: killed while its entry plays the lowest tier, the
restarted server goes on counting that tier's finished matches, promotes the entry once, and moves
it to the next tier's ladder; killed again after the promotion, nothing is decided twice."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from competition_support import ok, status, wait_for
from sqlalchemy import create_engine, text

from kingmaker.server.background import ServerProcess

pytestmark = pytest.mark.slow

TOKEN = "test-admin-token"
RANDOM = f"{sys.executable} -m kingmaker.sample_bots.random_bot"
GREEDY = f"{sys.executable} -m kingmaker.sample_bots.kingdoms.greedy_bot"
FINISHED_IN = (
    "SELECT count(*) FROM match m JOIN league l ON l.id = m.league_id"
    " WHERE l.name = '{league}' AND m.status = 'finished'"
)


def scalar(database: str, query: str) -> Any:
    engine = create_engine(database)
    try:
        with engine.connect() as connection:
            return connection.execute(text(query)).scalar()
    finally:
        engine.dispose()


def test_tiers_survive_sigkill_before_and_after_a_promotion(tmp_path: Path, clock_file: Path) -> None:
    home, socket = tmp_path / "home", tmp_path / "server.sock"
    database = f"sqlite:///{tmp_path / 'ladder.db'}"

    def start() -> ServerProcess:
        # (in one process, as test_competition_survives_sigkill: the state killed is the main one's)
        return ServerProcess(home, socket, database, TOKEN, ["--concurrency", "2", "--executor", "local"])

    server = start()
    try:
        admin = ["--server", server.address, "--token", TOKEN]
        for name, command in (("wood-boss", RANDOM), ("gold-boss", GREEDY), ("greedy", GREEDY)):
            ok("bot", "add", name, "-g", "kingdoms", "-c", command, *admin)
        deadline = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        tiers = ["--tier", "wood=wood-boss", "--tier", "gold=gold-boss", "--promote-after", "12"]
        ok("competition", "create", "season", "-g", "kingdoms", "--closes", deadline, *tiers, *admin)
        ok("competition", "enter", "season", "greedy", *admin)

        # Killed while the entry plays in wood (its matches there so far are kept and counted).
        wait_for("a match in wood", lambda: scalar(database, FINISHED_IN.format(league="season.t1")) > 0)
        server.kill()
        server = start()
        admin = ["--server", server.address, "--token", TOKEN]
        promoted = wait_for(
            "the promotion after the restart",
            lambda: (s := status("season", admin))["entries"][0]["tier"] == "gold" and s,
        )
        assert [d["bot"] for d in promoted["decisions"] if d["kind"] == "promote"] == ["greedy"]
        wait_for("a match in gold", lambda: scalar(database, FINISHED_IN.format(league="season.t2")) > 0)

        # Killed after the promotion: nothing is decided again, the entry stays in gold.
        server.kill()
        server = start()
        admin = ["--server", server.address, "--token", TOKEN]
        wait_for(
            "gold to play on after the restart",
            lambda: scalar(database, FINISHED_IN.format(league="season.t2")) > 1,
        )
        after = status("season", admin)
        assert [d for d in after["decisions"] if d["kind"] == "promote"] == [
            d for d in promoted["decisions"] if d["kind"] == "promote"
        ]
        assert after["entries"][0]["tier"] == "gold"
        in_wood = scalar(
            database,
            "SELECT count(*) FROM leaguebot lb JOIN league l ON l.id = lb.league_id JOIN bot b"
            " ON b.id = lb.bot_id WHERE l.name = 'season.t1' AND b.name = 'greedy' AND lb.left_at IS NULL",
        )
        assert in_wood == 0, "the promoted entry left the wood ladder"
    finally:
        server.kill()
