"""A ladder league that lives: through a real server, a remote bot whose author is offline is away
(no match, no fault) while the others play; a bot joins the running league and plays; the remote
bot connects and plays; it disconnects and is away again; every rating counts exactly the matches
played, and nobody has a fault."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.ratings import standings
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

runner = CliRunner()
INSTANT = f"{sys.executable} -m kingmaker.sample_bots.instant_bot"
GRACE_S = 2.0


@pytest.fixture
def server(kingmaker_home: Path) -> Iterator[BackgroundServer]:
    running = BackgroundServer(ServerConfig(address="127.0.0.1:0", away_grace=GRACE_S, concurrency=2))
    try:
        yield running
    finally:
        running.stop()


def cli(server: BackgroundServer, *args: str) -> str:
    result = runner.invoke(app, [*args, "--server", server.address])
    assert result.exit_code == 0, result.stderr or result.output
    return result.stdout


def wait_until(what: str, condition: Callable[[], bool], timeout: float = 180.0) -> None:
    """Poll ``condition`` until it holds; fail saying ``what`` did not happen (the machine is slow)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout:.0f} s: {what}"
        time.sleep(0.2)


def finished_with(server: BackgroundServer, bot: str) -> int:
    """The league's finished matches that seated ``bot``."""
    matches = list_matches(server.server.db, league="living", limit=1000)
    return sum(1 for match in matches if match.status == "finished" and bot in match.bots)


def played_by(server: BackgroundServer, bot: str) -> int:
    """The league's matches that seated ``bot`` and were started (running or finished)."""
    matches = list_matches(server.server.db, league="living", limit=1000)
    return sum(1 for match in matches if match.status in ("running", "finished") and bot in match.bots)


def finished(server: BackgroundServer) -> int:
    return sum(
        1
        for match in list_matches(server.server.db, league="living", limit=1000)
        if match.status == "finished"
    )


def test_a_ladder_plays_on_while_a_bot_is_away_takes_a_newcomer_and_welcomes_it_back(
    server: BackgroundServer,
) -> None:
    db = server.server.db
    for name in ("a", "b", "late"):
        cli(server, "bot", "add", name, "--game", "kingdoms", "--command", INSTANT)
    roamer, token = register_bot(db, "roamer", ["kingdoms"])
    cli(server, "league", "create", "living", "--game", "kingdoms", "--format", "ladder",
        "--bot=a", "--bot=b", "--bot=roamer", "--seed", "5")  # fmt: skip
    cli(server, "league", "resume", "living")  # runs on the server, in the background

    def is_away() -> bool:
        return roamer.id in leagues.get_league(db, "living").away_ids

    # roamer's author is offline: after the grace it is away, and a and b play on without it.
    wait_until("roamer is away", is_away)
    start = finished(server)
    wait_until("a and b play six matches", lambda: finished(server) >= start + 6)
    assert played_by(server, "roamer") == 0
    status = cli(server, "league", "status", "living")
    assert "away: roamer" in status
    assert "matches/min" in status

    # A bot joins the running league and plays.
    joined = cli(server, "league", "join", "living", "late")
    assert "late" in joined
    wait_until("late plays three matches", lambda: finished_with(server, "late") >= 3)
    assert played_by(server, "roamer") == 0

    # roamer's author comes online: it is back, and plays.
    bot = subprocess.Popen(
        [sys.executable, "-m", "kingmaker.sample_bots.remote_random_bot", "--server", server.address,
         "--token", token],
    )  # fmt: skip
    try:
        wait_until("roamer plays three matches", lambda: finished_with(server, "roamer") >= 3)
        assert not is_away()
        # It goes offline between matches (the league paused meanwhile, so that no match of it is
        # cut short, which would be its fault): after the grace it is away again.
        cli(server, "league", "pause", "living")
        league_id = leagues.get_league(db, "living").id
        wait_until("its matches in play finish", lambda: league_progress(db, league_id)["running"] == 0)
    finally:
        bot.terminate()
        bot.wait(30)
    cli(server, "league", "resume", "living")
    wait_until("roamer is away again", is_away)
    played = played_by(server, "roamer")
    start = finished(server)
    wait_until("the others play six more matches", lambda: finished(server) >= start + 6)
    assert played_by(server, "roamer") == played
    cli(server, "league", "stop", "living")
    wait_until("the matches in play finish", lambda: league_progress(db, league_id)["running"] == 0)

    # Ratings count exactly the matches played, and nobody was faulted (never_connected least of all).
    matches = [m for m in list_matches(db, league="living", limit=1000) if m.status == "finished"]
    faulted = [
        (match.match_id, match.started_at, match.bots[seat.seat], seat.end_reason, seat.detail)
        for match in matches
        for seat in match.seats
        if seat.end_reason != EndReason.FINISHED
    ]
    assert not faulted, f"seats that did not finish (match, started, bot, how, why): {faulted}"
    table = {row.bot: row for row in standings.standings(db, "kingdoms")}
    for name in ("a", "b", "late", "roamer"):
        assert table[name].matches == sum(1 for match in matches if name in match.bots)
        assert table[name].faults == 0
    cancelled = Counter(
        m.status_reason for m in list_matches(db, league="living", limit=1000) if m.status == "cancelled"
    )
    assert cancelled["bot roamer was away (not connected)"] >= 1  # planned before it was away
    assert set(cancelled) <= {"bot roamer was away (not connected)", "the league was stopped"}
