"""Kill the server with SIGKILL in the middle of a league, start it again: the league resumes,
finished matches are neither lost nor counted twice, interrupted ones are replayed."""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest
from sqlalchemy import create_engine, text

from kingmaker.server import background
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

TOKEN = "test-admin-token"
METADATA = (("authorization", f"Bearer {TOKEN}"),)


class ServerProcess(background.ServerProcess):
    def __init__(self, home: Path, socket: Path, database: str) -> None:
        super().__init__(home, socket, database, TOKEN, ["--concurrency", "2"])

    def stub(self, channel: grpc.Channel) -> admin_pb2_grpc.AdminStub:
        return admin_pb2_grpc.AdminStub(channel)


@pytest.fixture
def paths(tmp_path: Path, ladder_url: str) -> tuple[Path, Path, str]:
    return tmp_path / "home", tmp_path / "server.sock", ladder_url


def rows(database: str, query: str) -> list[tuple[object, ...]]:
    engine = create_engine(database)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(text(query))]
    finally:
        engine.dispose()


def test_a_league_survives_sigkill(paths: tuple[Path, Path, str]) -> None:
    home, socket, database = paths
    server = ServerProcess(home, socket, database)
    try:
        with grpc.insecure_channel(server.address) as channel:
            admin = server.stub(channel)
            names = [f"random-{i}" for i in range(5)]
            for name in names:
                command = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]
                admin.AddBot(
                    admin_pb2.AddBotRequest(name=name, games=["kingdoms"], command=command), metadata=METADATA
                )
            request = admin_pb2.CreateLeagueRequest(name="l", game="kingdoms", bots=names, rounds=2, seed=9)
            planned = sum(admin.CreateLeague(request, metadata=METADATA).matches.values())
            assert planned == 20
            # Follow the run until a few matches are finished, then kill the server mid-league.
            for progress in admin.RunLeague(admin_pb2.RunLeagueRequest(name="l"), metadata=METADATA):
                if progress.finished >= 4 and progress.running > 0:
                    # At once, not after closing the stream: on a loaded machine the matches in
                    # play could end in between, and the kill would land between matches.
                    server.kill()
                    break
    finally:
        server.kill()

    finished_before = rows(database, "SELECT id, seed FROM match WHERE status = 'finished' ORDER BY id")
    seats_before = rows(
        database,
        "SELECT s.match_id, s.seat, s.bot_id, s.score, s.rank FROM matchseat s"
        " JOIN match m ON m.id = s.match_id WHERE m.status = 'finished' ORDER BY 1, 2",
    )
    interrupted = rows(database, "SELECT id FROM match WHERE status = 'running'")
    assert 4 <= len(finished_before) < planned
    assert interrupted, "the kill landed in the middle of a match"

    server = ServerProcess(home, socket, database)
    try:
        with grpc.insecure_channel(server.address) as channel:
            admin = server.stub(channel)
            updates = list(admin.RunLeague(admin_pb2.RunLeagueRequest(name="l"), metadata=METADATA))
            last = updates[-1]
            assert last.done
            assert last.finished == planned
    finally:
        server.kill()

    # Nothing finished before the kill changed; every planned match has exactly one result.
    assert set(rows(database, "SELECT id, seed FROM match WHERE status = 'finished'")) >= set(finished_before)
    after = rows(
        database,
        "SELECT s.match_id, s.seat, s.bot_id, s.score, s.rank FROM matchseat s"
        f" WHERE s.match_id IN ({','.join(str(m) for m, _ in finished_before)}) ORDER BY 1, 2",
    )
    assert after == seats_before
    assert rows(database, "SELECT status, count(*) FROM match GROUP BY status") == [("finished", planned)]
    for (match_id,) in interrupted:
        assert rows(database, f"SELECT status FROM match WHERE id = {match_id}") == [("finished",)]
    # Ratings counted each match once: per bot, its counter equals the matches it finished.
    counters = dict(rows(database, "SELECT b.name, r.matches FROM rating r JOIN bot b ON b.id = r.bot_id"))
    played = dict(
        rows(
            database,
            "SELECT b.name, count(*) FROM matchseat s JOIN bot b ON b.id = s.bot_id GROUP BY b.name",
        )
    )
    unrated = rows(
        database,
        "SELECT m.id, m.status_reason, s.seat, s.end_reason, s.detail FROM match m"
        " JOIN matchseat s ON s.match_id = m.id WHERE NOT m.rated ORDER BY 1, 3",
    )
    assert counters == played, f"matches left unrated: {unrated}"
    assert sum(played.values()) == 2 * planned
    history = rows(database, "SELECT count(*), count(DISTINCT match_id || '-' || bot_id) FROM ratinghistory")
    assert history[0][0] == history[0][1] == 2 * planned
