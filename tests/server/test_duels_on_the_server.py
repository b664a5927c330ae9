"""Duels between registered bots, played by the server: the SPRT decides a clear match-up, an
author may duel a bot of their own against anyone's, and a seat the server cannot fill stops the
duel with its reason instead of counting as a result."""

from __future__ import annotations

import sys

from typer.testing import CliRunner

from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.ratings.standings import standings
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

runner = CliRunner()
GREEDY = [sys.executable, "-m", "kingmaker.sample_bots.kings_road.greedy_bot"]
RANDOM = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]


def duel(server: BackgroundServer, token: str, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["duel", *args, "--server", server.address, "--token", token])
    return result.exit_code, result.stdout + result.stderr


def test_the_server_decides_a_clear_match_up(server: BackgroundServer) -> None:
    db = server.server.db
    bots.register_bot(db, "greedy", ["kings_road"], GREEDY)
    bots.register_bot(db, "rnd", ["kings_road"], RANDOM)
    code, out = duel(
        server,
        server.admin_token,
        "greedy",
        "rnd@",
        "-g",
        "kings_road",
        "--elo1",
        "200",
        "--max-matches",
        "80",
    )
    assert code == 0, out
    assert "H1 accepted: greedy v1 is at least 200 Elo stronger than rnd v1" in out
    assert "on the server" in out and "LLR" in out
    # Neither stored nor rated: a duel is a measurement.
    assert {row.bot: row.matches for row in standings(db, "kings_road", 100, 0)} == {"greedy": 0, "rnd": 0}
    assert list_matches(db) == []


def test_an_author_duels_her_bot_against_anyones_but_not_two_of_others(server: BackgroundServer) -> None:
    db = server.server.db
    ann, token = authors.add_author(db, "ann")
    bots.register_bot(db, "mine", ["kings_road"], RANDOM, author_id=ann.id)
    bots.register_bot(db, "theirs", ["kings_road"], GREEDY)
    bots.register_bot(db, "other", ["kings_road"], RANDOM)
    code, out = duel(server, token, "mine", "theirs", "-g", "kings_road", "--max-matches", "2")
    assert code == 0 and "undecided after 2 matches" in out, out
    code, out = duel(server, token, "other", "theirs", "-g", "kings_road", "--max-matches", "2")
    assert code == 1 and "at least one seat must be a bot of yours" in out


def test_a_seat_the_server_cannot_fill_stops_the_duel_with_its_reason(server: BackgroundServer) -> None:
    db = server.server.db
    bots.register_bot(db, "rnd", ["kings_road"], RANDOM)
    bots.register_bot(db, "broken", ["kings_road"], ["/nonexistent/bot"])
    code, out = duel(server, server.admin_token, "rnd", "broken", "-g", "kings_road", "--max-matches", "20")
    assert code == 1, out
    assert "stopped: broken: cannot start '/nonexistent/bot'" in out


def test_bad_duels_are_one_line(server: BackgroundServer) -> None:
    bots.register_bot(server.server.db, "rnd", ["kings_road"], RANDOM)
    for args, said in (
        (["rnd", "random", "-g", "kings_road"], "'rnd' is no local bot"),
        (["rnd", "nobody", "-g", "kings_road"], "no bot named 'nobody'"),
        (["rnd", "rnd@7", "-g", "kings_road"], "rnd@7: a duel plays a bot's active version"),
        (["rnd", "rnd", "-g", "kingdoms"], "rnd does not play kingdoms"),
        (["rnd", "rnd", "-g", "kings_road", "--jobs", "2"], "--jobs is for local bots"),
    ):
        code, out = duel(server, server.admin_token, *args)
        assert code == 1 and said in out, out
        assert len([line for line in out.splitlines() if line.strip()]) <= 2, out
