"""Leagues through the real server and real bot processes, driven by the command line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import inspect, text
from typer.testing import CliRunner

from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.ratings import standings
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

runner = CliRunner()
RANDOM = "-m kingmaker.sample_bots.random_bot"
GREEDY = "-m kingmaker.sample_bots.kingdoms.greedy_bot"


def cli(server: BackgroundServer, *args: str) -> str:
    result = runner.invoke(app, [*args, "--server", server.address])
    assert result.exit_code == 0, result.stderr or result.output
    return result.stdout


def register(server: BackgroundServer, name: str, module_args: str, game: str = "kingdoms") -> None:
    import sys

    cli(server, "bot", "add", name, "--game", game, "--command", f"{sys.executable} {module_args}")


def test_a_round_robin_of_six_bots_rates_every_match_once(server: BackgroundServer) -> None:
    names = ["greedy-1", "greedy-2", "random-1", "random-2", "random-3", "random-4"]
    for name in names:
        register(server, name, GREEDY if name.startswith("greedy") else RANDOM)
    cli(
        server, "league", "create", "six", "--game", "kingdoms", *[f"--bot={n}" for n in names], "--seed", "3"
    )
    out = cli(server, "league", "run", "six")
    assert "15 finished" in out  # 6 bots, every pairing once

    db = server.server.db
    matches = list_matches(db, league="six", limit=100)
    assert len(matches) == 15
    pairings = {frozenset(m.bots) for m in matches}
    assert len(pairings) == 15, "every pairing exactly once"
    for match in matches:
        assert match.status == "finished"
        assert sorted(seat.rank for seat in match.seats) in ([1, 2], [1, 1])
    table = {row.bot: row for row in standings.standings(db, "kingdoms")}
    assert all(row.matches == 5 for row in table.values())
    # Ratings moved the right way: greedy bots gained, random bots lost, from the prior 25.
    for name in names:
        if name.startswith("greedy"):
            assert table[name].mu > 25 and table[name].wins >= 3
        else:
            assert table[name].mu < 28
    assert min(table[g].conservative for g in ("greedy-1", "greedy-2")) > max(
        table[r].conservative for r in names[2:]
    )
    shown = cli(server, "ladder", "kingdoms")
    assert shown.index("greedy-") < shown.index("random-")
    assert leagues.get_league(db, "six").finished


def test_replay_verify_reaches_the_recorded_end(server: BackgroundServer, tmp_path: Path) -> None:
    register(server, "g", GREEDY)
    register(server, "r", RANDOM)
    cli(server, "league", "create", "two", "--game", "kingdoms", "--bot=g", "--bot=r", "--rounds", "2")
    cli(server, "league", "run", "two")
    match_id = str(list_matches(server.server.db, league="two")[0].match_id)
    out = cli(server, "replay", match_id, "--verify")
    # The verdict after the scores, not after every move (there were about a hundred).
    assert "verified" in out and not re.search(r"^\s*\d+\s+seat \d", out, re.MULTILINE)
    assert len(out.strip().splitlines()) < 15
    out = cli(server, "replay", match_id, "--verify", "--moves")  # unless asked
    assert "verified" in out and re.search(r"^\s*1\s+seat \d \([gr]\): ", out, re.MULTILINE)
    # Tamper with the stored log: the replay must now fail loudly.
    with server.server.db.engine.begin() as connection:
        connection.execute(
            text("UPDATE matchseat SET score = score + 1 WHERE match_id = :match AND seat = 0"),
            {"match": int(match_id)},
        )
    result = runner.invoke(app, ["replay", match_id, "--verify", "--server", server.address])
    assert result.exit_code == 1
    assert "does not match the record" in result.stderr
    plot = tmp_path / "ratings.png"
    cli(server, "ladder", "kingdoms", "--plot", str(plot))
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bot", "add", "x", "--game", "chess"], "unknown game 'chess'"),
        (["bot", "add", "taken", "--game", "kingdoms"], "already exists"),
        (["bot", "show", "nobody"], "nobody"),
        (["league", "create", "l", "--game", "kingdoms", "--bot", "taken", "--bot", "ghost"], "ghost"),
        (["league", "create", "l", "--game", "kingdoms", "--bot", "taken"], "cannot fill a 2-seat match"),
        (
            ["league", "create", "l", "--game", "chess", "--bot", "taken", "--bot", "other"],
            "unknown game 'chess'",
        ),
        (["league", "run", "nothing"], "nothing"),
        (["ladder", "chess"], "unknown game 'chess'"),
        (["replay", "999"], "no match 999"),
    ],
)
def test_bad_input_is_one_clear_line_and_changes_nothing(
    server: BackgroundServer, args: list[str], message: str
) -> None:
    cli(server, "bot", "add", "taken", "--game", "kingdoms")
    cli(server, "bot", "add", "other", "--game", "kingdoms")
    before = snapshot(server)
    result = runner.invoke(app, [*args, "--server", server.address])
    assert result.exit_code != 0
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert snapshot(server) == before


def test_a_wrong_token_changes_nothing(server: BackgroundServer) -> None:
    before = snapshot(server)
    args = ["bot", "add", "x", "--game", "kingdoms", "--server", server.address, "--admin-token", "nope"]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert "the server does not know this token" in result.stderr
    assert snapshot(server) == before


def snapshot(server: BackgroundServer) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table of the server's database."""
    with server.server.db.engine.connect() as connection:
        tables = inspect(connection).get_table_names()
        return {
            table: sorted(
                (tuple(row) for row in connection.execute(text(f'SELECT * FROM "{table}"'))), key=repr
            )
            for table in tables
        }


def test_a_crashing_bot_is_suspended_and_its_owner_reads_why(server: BackgroundServer) -> None:
    register(server, "crashy", "-m kingmaker.sample_bots.faulty.crash_bot")
    register(server, "steady", RANDOM)
    cli(
        server,
        "league",
        "create",
        "faults",
        "--game",
        "kingdoms",
        "--bot=crashy",
        "--bot=steady",
        "--rounds",
        "3",
    )
    ran = runner.invoke(app, ["league", "run", "faults", "--server", server.address])
    # A run in which a bot faulted says so per bot and exits 3 (0 is for a clean run).
    assert ran.exit_code == 3, ran.stderr or ran.output
    assert "crashy" in ran.stdout and "3 crashed" in ran.stdout
    table = {row.bot: row for row in standings.standings(server.server.db, "kingdoms")}
    assert table["crashy"].faults == 3
    assert table["steady"].wins == 3, "a faulty seat ranks last"
    shown = cli(server, "bot", "show", "crashy")
    assert "suspended" in shown
    assert "crashed" in shown
    listed = cli(server, "match", "list", "--league", "faults")
    assert listed.count("finished") == 3


def test_a_league_reruns_from_its_seeds(server: BackgroundServer) -> None:
    register(server, "a", RANDOM)
    register(server, "b", RANDOM)
    cli(server, "league", "create", "first", "--game", "kingdoms", "--bot=a", "--bot=b", "--rounds", "2")
    cli(server, "league", "run", "first")
    cli(server, "league", "rerun", "first", "second")
    cli(server, "league", "run", "second")
    db = server.server.db
    first = sorted((m.seed, m.bots) for m in list_matches(db, league="first"))
    second = sorted((m.seed, m.bots) for m in list_matches(db, league="second"))
    assert first == second


def test_a_one_off_match_between_registered_bots_is_stored_and_rated(server: BackgroundServer) -> None:
    register(server, "g", GREEDY)
    register(server, "r", RANDOM)
    out = cli(server, "match", "run", "kingdoms", "--bot", "g", "--bot", "r", "--seed", "5")
    assert "finished" in out
    [match] = list_matches(server.server.db, game="kingdoms")
    assert match.league is None
    assert match.bots == ("g", "r")
    assert {row.bot: row.matches for row in standings.standings(server.server.db, "kingdoms")} == {
        "g": 1,
        "r": 1,
    }
    assert "verified" in cli(server, "replay", str(match.match_id), "--verify", "--quiet")
