"""The server killed with SIGKILL in each phase of a competition, then started again: a deadline
that passed while it was down is applied when it starts; the frozen versions and every decision
stay as they were, once each; the finals resume where they stopped, no finished match lost nor
played twice, and the winner, once published, stays published."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from competition_support import add_authors, move_clock, ok, status, submit, wait_for
from sqlalchemy import create_engine, text

from kingmaker.server.background import ServerProcess
from kingmaker.server.jail.sandbox import bubblewrap

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")]

TOKEN = "test-admin-token"


def rows(database: str, query: str) -> list[tuple[Any, ...]]:
    engine = create_engine(database)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(query))]
    finally:
        engine.dispose()


FINALS_MATCHES = (
    "SELECT m.id, m.league_id, m.ordinal, m.status FROM match m JOIN competitionstage s"
    " ON s.league_id = m.league_id ORDER BY m.id"
)


def test_a_competition_survives_sigkill_in_every_phase(tmp_path: Path, clock_file: Path) -> None:
    home, socket = tmp_path / "home", tmp_path / "server.sock"
    database = f"sqlite:///{tmp_path / 'ladder.db'}"

    def start() -> ServerProcess:
        return ServerProcess(home, socket, database, TOKEN, ["--concurrency", "2"])

    server = start()
    try:
        who = add_authors(server.address, TOKEN)
        for author in ("ann", "ben", "cat"):
            submit(tmp_path / author, f"{author}-bot", "count - 1", who[author])
        deadline = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        finals = ["--rounds", "2", "--cut", "2"]
        ok("competition", "create", "cup", "-g", "kingdoms", "--closes", deadline, *finals, *who["admin"])
        for author in ("ann", "ben", "cat"):
            ok("competition", "enter", "cup", f"{author}-bot", *who[author])
        assert submit(tmp_path / "ann-2", "ann-bot", "0", who["ann"]) == 2

        # Killed while open; the deadline passes while it is down, and is applied when it starts.
        server.kill()
        move_clock(clock_file, hours=2)
        server = start()
        closed = wait_for(
            "the deadline at start-up", lambda: (s := status("cup", who["admin"]))["phase"] == "closed" and s
        )
        assert {e["bot"]: e["frozen_version"] for e in closed["entries"]} == {
            "ann-bot": 2,
            "ben-bot": 1,
            "cat-bot": 1,
        }

        # Killed while closed: nothing moves.
        server.kill()
        server = start()
        again = status("cup", who["admin"])
        assert again["phase"] == "closed" and again["decisions"] == closed["decisions"]
        assert again["entries"] == closed["entries"]

        # Killed in the middle of the finals: they resume on their own when it starts.
        ok("competition", "finals", "cup", *who["admin"])
        wait_for(
            "a finals match", lambda: any(row[3] == "finished" for row in rows(database, FINALS_MATCHES))
        )
        server.kill()
        finished_before = {row[0] for row in rows(database, FINALS_MATCHES) if row[3] == "finished"}
        assert rows(database, "SELECT phase FROM competition") == [("finals",)], (
            "the kill landed in the finals"
        )
        server = start()
        final = wait_for("the winner", lambda: (s := status("cup", who["admin"]))["phase"] == "final" and s)

        matches = rows(database, FINALS_MATCHES)
        finished = [row for row in matches if row[3] == "finished"]
        assert finished_before <= {row[0] for row in finished}, "no finished match is lost"
        slots = [(row[1], row[2]) for row in finished]
        assert len(slots) == len(set(slots)), "no planned match is finished twice"
        # Stage 1: 3 bots, 3 pairs, 2 rounds, both seatings; stage 2: the 2 left, 1 pair.
        assert len(finished) == 3 * 2 * 2 + 1 * 2 * 2
        assert not [row for row in matches if row[3] in ("running", "scheduled")]
        versions = rows(
            database,
            "SELECT b.name, s.version FROM matchseat s JOIN bot b ON b.id = s.bot_id"
            " JOIN match m ON m.id = s.match_id JOIN competitionstage c ON c.league_id = m.league_id",
        )
        assert set(versions) == {("ann-bot", 2), ("ben-bot", 1), ("cat-bot", 1)}
        kinds = [d["kind"] for d in final["decisions"]]
        for kind, count in (
            ("freeze", 3),
            ("seed", 3),
            ("close", 1),
            ("finals", 1),
            ("cut", 1),
            ("winner", 1),
        ):
            assert kinds.count(kind) == count, (kind, kinds)

        # Killed once final: the winner stays published, nothing is decided again.
        server.kill()
        server = start()
        after = status("cup", who["admin"])
        assert after["winner"] == final["winner"] and after["decisions"] == final["decisions"]
        assert after["standings"] == final["standings"]
    finally:
        server.kill()
