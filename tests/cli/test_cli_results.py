"""Results you can take away, through the command line and a real server: every listing as JSON,
a league exported as CSV or JSON and shown as a crosstable, a bot's record and think time in
`bot show`, a replay readable as text; and every bad input answered with one line."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.ladder.matches.history import list_matches, match_summary
from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.seats.deadlines import TimeControl

runner = CliRunner()
PYTHON = sys.executable
GREEDY = f"{PYTHON} -m kingmaker.sample_bots.kingdoms.greedy_bot"
RANDOM = f"{PYTHON} -m kingmaker.sample_bots.random_bot"
CRASH = f"{PYTHON} -m kingmaker.sample_bots.faulty.crash_bot"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """One server for the module, with a finished league "weekly" of three kingdoms bots (one
    of which crashes) and a one-off match; the tests only read it."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KINGMAKER_HOME", str(home))
        patch.delenv("KINGMAKER_ADMIN_TOKEN", raising=False)
        patch.delenv("KINGMAKER_SERVER", raising=False)
        control = TimeControl(decision_ms=1000)
        config = ServerConfig(address="127.0.0.1:0", time_control=control, connect_timeout=15)
        server = BackgroundServer(config)
        try:
            for name, command in (("greedy", GREEDY), ("random", RANDOM), ("crash", CRASH)):
                ok(server, "bot", "add", name, "-g", "kingdoms", "-c", command, "--no-check")
            ok(server, "bot", "add", "idle", "-g", "kingsburg")
            ok(
                server, "league", "create", "weekly", "-g", "kingdoms", "-b", "greedy", "-b", "random",
                "-b", "crash", "--seed", "3",
            )  # fmt: skip
            invoke(server, "league", "run", "weekly")  # exits 3: the crash bot faults
            ok(server, "match", "run", "kingdoms", "--bot", "greedy", "--bot", "random", "--seed", "9")
            yield server
        finally:
            server.stop()


def invoke(server: BackgroundServer, *args: str) -> tuple[int, str, str]:
    local = args[0] == "games"  # read from this installation, not the server
    reach = [] if local else ["--server", server.address, "--admin-token", server.admin_token]
    result = runner.invoke(app, [*args, *reach], terminal_width=80)
    return result.exit_code, result.stdout, result.stderr


def ok(server: BackgroundServer, *args: str) -> str:
    code, out, err = invoke(server, *args)
    assert code == 0, err or out
    return out


def one_line_error(server: BackgroundServer, *args: str) -> str:
    code, out, err = invoke(server, *args)
    assert code != 0, out
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_every_listing_prints_json(played: BackgroundServer) -> None:
    bots = json.loads(ok(played, "bot", "list", "--json"))
    assert [bot["name"] for bot in bots["bots"]] == ["crash", "greedy", "idle", "random"]
    leagues = json.loads(ok(played, "league", "list", "--json"))
    assert [league["name"] for league in leagues["leagues"]] == ["weekly"]
    status = json.loads(ok(played, "league", "status", "weekly", "--json"))
    assert status["finished"] is True and status["matches"]["finished"] == 3
    matches = json.loads(ok(played, "match", "list", "--json"))["matches"]
    assert len(matches) == 4
    assert matches[0]["league"] == "" and [s["bot"] for s in matches[0]["seats"]] == ["greedy", "random"]
    ladder = json.loads(ok(played, "ladder", "kingdoms", "--json"))
    assert {row["bot"] for row in ladder["standings"]} == {"greedy", "random", "crash"}
    games = json.loads(ok(played, "games", "--json"))
    assert sorted(game["name"] for game in games) == ["kingdoms", "kings_road", "kingsburg", "kingsville"]
    shown = json.loads(ok(played, "match", "show", matches[0]["match_id"], "--json"))
    assert shown["seats"][0]["decisions"] > 0
    bot = json.loads(ok(played, "bot", "show", "greedy", "--json"))
    assert bot["name"] == "greedy" and bot["stats"]["games"][0]["matches"] == 3


def test_one_off_matches_are_listed_with_no_league(played: BackgroundServer) -> None:
    out = ok(played, "match", "list")
    one_off = next(line for line in out.splitlines() if re.match(r"^\d+\s+-\s+kingdoms", line))
    assert "kingdoms" in one_off and "finished" in one_off


def test_league_export_as_csv_has_a_row_per_seat(played: BackgroundServer) -> None:
    rows = list(csv.DictReader(io.StringIO(ok(played, "league", "export", "weekly", "--format", "csv"))))
    assert len(rows) == 6  # three matches of two seats
    assert {row["league"] for row in rows} == {"weekly"}
    crashed = [row for row in rows if row["bot"] == "crash"]
    assert {row["end_reason"] for row in crashed} == {"crashed"}
    assert all(row["rank"] == "2" for row in crashed)
    finished = [row for row in rows if row["end_reason"] == "finished"]
    assert all(int(row["decisions"]) > 0 and float(row["think_ms_p99"]) >= 0 for row in finished)
    assert all(row["started_at"].endswith("+00:00") for row in rows)
    ids = [int(row["match_id"]) for row in rows]
    assert ids == sorted(ids)  # oldest first


def test_league_export_as_json_to_a_file(played: BackgroundServer, tmp_path: Path) -> None:
    target = tmp_path / "weekly.json"
    out = ok(played, "league", "export", "weekly", "-f", "json", "-o", str(target))
    assert "wrote 3 matches" in out
    matches = json.loads(target.read_text())
    stored = list_matches(played.server.db, league="weekly")
    assert sorted(m["seed"] for m in matches) == sorted(m.seed for m in stored)
    assert all(len(m["seats"]) == 2 and m["status"] == "finished" for m in matches)


def test_league_table_shows_head_to_head_places_faults_and_time(played: BackgroundServer) -> None:
    out = ok(played, "league", "table", "weekly")
    assert all(len(line) <= 80 for line in out.splitlines())
    assert "greedy" in out and "random" in out and "crash" in out
    # Every table names its rows, and a number is the same bot in each (the crosstable's order).
    numbered = [
        {row[0]: row[1] for line in section.splitlines() if (row := line.split()) and row[0].isdigit()}
        for section in re.split(r"\n\s*(?=head to head|meetings)", out)
    ]
    assert len(numbered) == 3 and numbered[0] == numbered[1] == numbered[2], out
    assert set(numbered[0].values()) == {"greedy", "random", "crash"}
    data = json.loads(ok(played, "league", "table", "weekly", "--json"))
    lines = {line["bot"]: line for line in data["bots"]}
    assert lines["crash"]["faults"] == 2 and lines["crash"]["places"] == [2, 2]
    # One clean win is not 1.00±0.00: Agresti-Coull's error of one win (see test_crosstable_errors).
    won = lines["greedy"]["head_to_head"]["crash"]
    assert won == {
        "meetings": 1,
        "observations": 1,
        "score": 1.0,
        "error": pytest.approx(math.sqrt(0.24 / 5)),
    }
    assert lines["greedy"]["ms_per_decision"] > 0
    # Both sides of a pairing add up to one point per meeting.
    for bot, line in lines.items():
        for other, pair in line["head_to_head"].items():
            mirror = lines[other]["head_to_head"][bot]
            assert pair["score"] + mirror["score"] == pytest.approx(1.0)


def test_bot_show_gives_its_record_and_think_time(played: BackgroundServer) -> None:
    out = ok(played, "bot", "show", "crash")
    assert "2 crashed" in out
    greedy = ok(played, "bot", "show", "greedy")
    assert "think time: p50" in greedy and "p99" in greedy
    stats = json.loads(ok(played, "bot", "show", "greedy", "--json"))["stats"]
    [kingdoms] = stats["games"]
    assert kingdoms["matches"] == 3 and 0 <= kingdoms["win_rate"] <= 1
    assert stats["think"]["p50_ms"] <= stats["think"]["p99_ms"]
    assert stats["think_matches"] == 3
    idle = ok(played, "bot", "show", "idle")
    assert "no rated matches yet" in idle


def test_a_crash_says_its_exit_code_in_the_stored_seat_match_show_and_bot_show(
    played: BackgroundServer,
) -> None:
    """Before, a crash read "the bot's process exited", with neither exit code nor signal."""
    said = "the bot's process exited with code 3"  # sample_bots/faulty/crash_bot.py: os._exit(3)
    out = ok(played, "bot", "show", "crash")
    found = re.search(r"last fault: match (\d+), crashed: (.+)", out)
    assert found is not None, out
    match_id, detail = found.groups()
    assert detail == said
    [seat] = [seat for seat in match_summary(played.server.db, int(match_id)).seats if seat.detail]
    assert seat.end_reason is EndReason.CRASHED and seat.detail == said
    shown = json.loads(ok(played, "match", "show", match_id, "--json"))
    assert [seat["detail"] for seat in shown["seats"] if seat["end_reason"] == "crashed"] == [said]
    assert said in " ".join(ok(played, "match", "show", match_id).split())  # however the table wraps
    assert "last fault" not in ok(played, "bot", "show", "greedy")


def test_replay_show_prints_each_decision_with_views_and_chance(played: BackgroundServer) -> None:
    match_id = str(list_matches(played.server.db, game="kingdoms")[0].match_id)
    out = ok(played, "replay", match_id, "--show")
    assert "decision 1" in out
    assert "seat 0 (greedy) sees:" in out and "seat 1 (random) sees" in out
    assert "chance: drew" in out  # Kingdoms draws tiles
    assert "plays PlaceCastle(" in out or "plays PlaceTile(" in out or "plays Draw" in out
    assert "replayed score" in out


def test_tables_fit_80_columns_and_keep_names_whole(played: BackgroundServer) -> None:
    for args in (("bot", "list"), ("league", "list"), ("match", "list"), ("ladder", "kingdoms"), ("games",)):
        out = ok(played, *args)
        assert all(len(line) <= 80 for line in out.splitlines()), args
    assert "kingdoms-heuristic" not in ok(played, "bot", "list")  # (sanity: only what exists)
    assert "kings_road" in ok(played, "games")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["league", "export", "nope"], "no league named 'nope'"),
        (["league", "export", "weekly", "--format", "xml"], "unknown --format 'xml'"),
        (["league", "export", "weekly", "-o", "/no/such/folder/x.csv"], "no folder /no/such/folder"),
        (["league", "table", "nope"], "no league named 'nope'"),
        (["league", "status", "nope", "--json"], "no league named 'nope'"),
        (["bot", "show", "nope"], "no bot named 'nope'"),
        (["bot", "list", "--game", "chess"], "unknown game 'chess'"),
        (["match", "list", "--game", "chess", "--json"], "unknown game 'chess'"),
        (["match", "list", "--league", "nope"], "no league named 'nope'"),
        (["ladder", "chess", "--json"], "unknown game"),
        (["replay", "999999", "--show"], "no match 999999"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(
    played: BackgroundServer, args: list[str], message: str
) -> None:
    before = ok(played, "match", "list", "--json")
    assert message in one_line_error(played, *args)
    assert ok(played, "match", "list", "--json") == before


@pytest.mark.parametrize("args", [["bot", "list", "--limit", "0"], ["ladder", "kingdoms", "--top", "99"]])
def test_out_of_range_numbers_are_refused(played: BackgroundServer, args: list[str]) -> None:
    code, _, err = invoke(played, *args)
    assert code == 2 and "Invalid value" in err


def descendants_running(module: str) -> list[int]:
    """Processes below this one (the server's bots) whose command line names ``module``."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            commands[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    me = os.getpid()

    def below(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == me:
                return True
        return False

    return [pid for pid, command in commands.items() if module in command and below(pid)]


def test_bots_started_for_a_one_off_match_are_stopped_after_it(played: BackgroundServer) -> None:
    ok(played, "match", "run", "kingdoms", "--bot", "greedy", "--bot", "random", "--seed", "10")
    deadline = time.monotonic() + 10
    while descendants_running("sample_bots.kingdoms.greedy_bot") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert descendants_running("sample_bots.kingdoms.greedy_bot") == []
    assert descendants_running("sample_bots.random_bot") == []
