"""A server that keeps a launched bot's process between its matches, and a bot that plays two
matches in a row on it: what the tests of a kept process's logs share (tests/server,
tests/protocol, tests/kits). A plugin of tests/conftest.py, so ``keeping_server`` is a fixture
everywhere."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import col, select

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.seat_logs import bot_logs
from kingmaker.ladder.storage.models import Match
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer


def two_matches_in_a_row(
    server: BackgroundServer, command: list[str], cwd: str | None = None
) -> list[tuple[int, str]]:
    """``command``, registered as "teller", plays two Kingsville matches one after the other on
    ``server``, which keeps its process between them: each match's id and the teller's stderr in it
    ."""
    db = server.server.db
    bots.register_bot(db, "teller", ["kingsville"], command=command, working_dir=cwd)
    instant = [sys.executable, "-m", "kingmaker.sample_bots.instant_bot"]
    bots.register_bot(db, "instant", ["kingsville"], command=instant)
    leagues.create_league(db, "two", "kingsville", ["teller", "instant"], rounds=2, seed=3)

    async def play_one_at_a_time() -> None:
        async for _ in server.server.leagues.watch("two", 1):
            pass

    server.run(play_one_at_a_time())
    with db.read() as session:
        played = session.exec(select(Match.id).order_by(col(Match.id))).all()
    logs = {log.match_id: log.stderr for log in bot_logs(db, "teller", 10)}
    return [(int(match_id), logs.get(int(match_id), "")) for match_id in played if match_id is not None]


def keeping_config(tmp_path: Path) -> ServerConfig:
    """A server that keeps a launched bot's process between its matches."""
    return ServerConfig(
        address="127.0.0.1:0",
        database_url=f"sqlite:///{tmp_path / 'k.db'}",
        admin_token="t",
        jail=False,  # trusted test bots; the jail is not what this is about
        keep_bots_s=600.0,  # the teller's process is kept between its matches
    )


@pytest.fixture
def keeping_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[BackgroundServer]:
    monkeypatch.setenv("KINGMAKER_HOME", str(tmp_path / "home"))
    server = BackgroundServer(keeping_config(tmp_path))
    try:
        yield server
    finally:
        server.stop()
