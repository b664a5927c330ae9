"""The server killed with SIGKILL in each phase of a competition of each finals format, then
started again, and nobody runs `competition finals`: a deadline that passed while it was down is
applied when it starts; the finals' time that passed while it was down starts them when it starts;
the frozen versions and every decision stay as they were, once each; the finals resume where they
stopped mid-round, no finished match lost nor played twice, and the winner, once published, stays
published."""

from __future__ import annotations

import shutil
import stat
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from competition_support import AUTHORS, add_authors, move_clock, ok, status, submit, wait_for
from sqlalchemy import create_engine, text

from kingmaker.ladder.competitions.competition_clock import CLOCK_FILE_ENV
from kingmaker.server.background import ServerProcess
from kingmaker.server.jail.sandbox import bubblewrap

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail"),
    pytest.mark.timeout(1800),  # builds in the jail and six server starts, on a shared machine
    # On one worker under pytest-xdist, so the formats share the ``authors`` built once.
    pytest.mark.xdist_group("competition-sigkill"),
]

TOKEN = "test-admin-token"
START_S = 300.0
"""A server start on a loaded machine."""
OPTIONS = ["--concurrency", "2", "--executor", "local"]
"""Matches refereed in the server's own process: what is killed here is the competition's state,
kept in the main process; a worker process per core at each of the 25 starts cost a fifth of the
module's CPU (a league killed with its workers: tests/leagues/test_sigkill_and_resume.py)."""


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


FORMATS = {
    # format: (its options, finished finals matches, decisions of each kind it makes)
    # 3 bots, 3 pairs, 1 round, both seatings; then the 2 left, 1 pair.
    "ladder": (["--rounds", "1", "--cut", "2"], 3 * 2 + 1 * 2, {"cut": 1}),
    # a bracket of 4: seed 1 has a bye, seeds 2 and 3 meet, then the final; a duplicate pair each.
    "bracket": (["--finals", "bracket", "--best-of", "1"], 2 + 2, {"advance": 3, "eliminated": 2}),
    # one table of 3 a round, a seed from each seat, 2 rounds.
    "swiss": (["--finals", "swiss", "--rounds", "2", "-p", "3"], 3 + 3, {"round": 2}),
    # a bracket of 4: seed 1 has a bye, seeds 2 and 3 meet (stage 1); the winners' final and a bye
    # in the losers' round 1 (stage 2); the losers' final (3); the grand final (4); a duplicate pair
    # each; and, if the losers' bracket's winner takes the grand final, its reset (5): 2 more.
    "double_elimination": (
        ["--finals", "double_elimination", "--best-of", "1"],
        2 + 2 + 2 + 2,
        {"advance": 2 + 2 + 1 + 1, "losers": 2, "eliminated": 2},
    ),
}


def sockets(folder: str, names: list[str]) -> list[str]:
    """The sockets a killed server left in its home (a copy cannot hold them; it makes its own)."""
    return [name for name in names if stat.S_ISSOCK((Path(folder) / name).lstat().st_mode)]


@dataclass(frozen=True)
class Authors:
    """A server's home and SQLite database (its files) where the three authors have a bot each,
    and ann a second version; and each author's token."""

    home: Path
    database: list[Path]
    tokens: dict[str, str]

    def copy_to(self, folder: Path) -> None:
        shutil.copytree(self.home, folder / "home", symlinks=True, ignore=sockets)
        for file in self.database:
            shutil.copy2(file, folder / file.name)

    def options(self, address: str) -> dict[str, list[str]]:
        """Per author (and "admin"), the options their commands carry to the server at ``address``."""
        return {name: ["--server", address, "--token", token] for name, token in self.tokens.items()}


@pytest.fixture(scope="module")
def authors(tmp_path_factory: pytest.TempPathFactory) -> Authors:
    """The bots every format's competition is played by, built and validated once for the module
    (a build in the jail and its validation matches are most of a submission's time); each test
    starts its own server on a copy. Killed as the tests kill it: SQLite keeps what was committed."""
    folder = tmp_path_factory.mktemp("authors")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(CLOCK_FILE_ENV, raising=False)  # no test's clock: this server's is the real one
        patch.setenv("XDG_CONFIG_HOME", str(folder / "config"))  # no stored login is used
        database = folder / "ladder.db"
        url, socket = f"sqlite:///{database}", folder / "server.sock"
        server = ServerProcess(folder / "home", socket, url, TOKEN, OPTIONS, start_timeout_s=START_S)
        try:
            who = add_authors(server.address, TOKEN)
            for author in AUTHORS:
                submit(folder / author, f"{author}-bot", "count - 1", who[author])
            assert submit(folder / "ann-2", "ann-bot", "0", who["ann"]) == 2
        finally:
            server.kill()
    return Authors(folder / "home", sorted(folder.glob("ladder.db*")), {name: who[name][3] for name in who})


@pytest.mark.parametrize("finals_format", list(FORMATS))
def test_a_competition_survives_sigkill_in_every_phase(
    tmp_path: Path, clock_file: Path, authors: Authors, finals_format: str
) -> None:
    options, finals_matches, decided = FORMATS[finals_format]
    authors.copy_to(tmp_path)
    home, socket = tmp_path / "home", tmp_path / "server.sock"
    database = f"sqlite:///{tmp_path / 'ladder.db'}"

    def start() -> ServerProcess:
        return ServerProcess(home, socket, database, TOKEN, OPTIONS, start_timeout_s=START_S)

    server = start()
    try:
        who = authors.options(server.address)
        # ann's second version was submitted before the competition opened (``authors``): the
        # freeze takes an entry's newest version all the same.
        deadline = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        finals_at = (datetime.now(UTC) + timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M:%SZ")
        ok("competition", "create", "cup", "-g", "kingdoms", "--closes", deadline, "--finals-at", finals_at,
           *options, *who["admin"])  # fmt: skip
        for author in AUTHORS:
            ok("competition", "enter", "cup", f"{author}-bot", *who[author])

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

        assert f"finals start by themselves at {finals_at}" in ok("competition", "status", "cup", *who["ann"])

        # Killed while closed: nothing moves.
        server.kill()
        server = start()
        again = status("cup", who["admin"])
        assert again["phase"] == "closed" and again["decisions"] == closed["decisions"]
        assert again["entries"] == closed["entries"]

        # Killed while closed, and the finals' time passes while it is down: they start by
        # themselves when it starts (nobody runs `competition finals`).
        server.kill()
        move_clock(clock_file, hours=4)
        server = start()
        started = wait_for(
            "the finals at start-up", lambda: (s := status("cup", who["admin"]))["phase"] != "closed" and s
        )
        (said,) = [d["reason"] for d in started["decisions"] if d["kind"] == "finals"]
        assert said.startswith(f"finals started at their stated time {finals_at}")

        # Killed in the middle of a round: it resumes on its own when it starts.
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
        kinds = [d["kind"] for d in final["decisions"]]
        resets = kinds.count("reset")  # a double elimination's grand final taken from the losers' side
        assert resets <= 1 and (resets == 0 or finals_format == "double_elimination")
        assert len(finished) == finals_matches + 2 * resets
        assert not [row for row in matches if row[3] in ("running", "scheduled")]
        versions = rows(
            database,
            "SELECT b.name, s.version FROM matchseat s JOIN bot b ON b.id = s.bot_id"
            " JOIN match m ON m.id = s.match_id JOIN competitionstage c ON c.league_id = m.league_id",
        )
        assert set(versions) == {("ann-bot", 2), ("ben-bot", 1), ("cat-bot", 1)}
        expected = {"freeze": 3, "seed": 3, "close": 1, "finals": 1, "winner": 1, **decided}
        if resets:
            expected["advance"] += 1
        for kind, count in expected.items():
            assert kinds.count(kind) == count, (kind, kinds)

        # Killed once final: the winner stays published, nothing is decided again.
        server.kill()
        server = start()
        after = status("cup", who["admin"])
        assert after["winner"] == final["winner"] and after["decisions"] == final["decisions"]
        assert after["standings"] == final["standings"]
    finally:
        server.kill()
