"""An organiser's life with bots and leagues, through the command line and a real server: bots
that start as written (or are refused, saying why), reinstate, edit, remove; leagues paused,
resumed and stopped; and every bad input answered with one line, changing nothing."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.leagues.league_counts import league_progress
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.storage.models import MatchStatus
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

runner = CliRunner()
RANDOM = f"{sys.executable} -m kingmaker.sample_bots.random_bot"

MY_BOT = """
from kingmaker.sdk import Bot, Request, run


class FirstChoice(Bot):
    def act(self, request: Request) -> int:
        return 0


if __name__ == "__main__":
    run(FirstChoice())
"""


def invoke(server: BackgroundServer, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--server", server.address])
    return result.exit_code, result.stdout, result.stderr


def ok(server: BackgroundServer, *args: str) -> str:
    code, out, err = invoke(server, *args)
    assert code == 0, err or out
    return out


def one_line_error(server: BackgroundServer, *args: str) -> str:
    code, _, err = invoke(server, *args)
    assert code != 0
    assert len(err.strip().splitlines()) == 1, err
    return err


def test_a_bot_registered_with_relative_paths_starts_as_written(
    server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_bot.py").write_text(MY_BOT)
    monkeypatch.chdir(tmp_path)
    # As the README has it: the script named relative to the folder the command is typed in.
    out = ok(server, "bot", "add", "mine", "-g", "kingdoms", "-c", f"{sys.executable} my_bot.py")
    assert str(tmp_path / "my_bot.py") in out
    assert str(tmp_path / "my_bot.py") in ok(server, "bot", "show", "mine")
    ok(server, "bot", "add", "other", "-g", "kingdoms", "-c", RANDOM)
    played = ok(server, "match", "run", "kingdoms", "--bot", "mine", "--bot", "other", "--seed", "2")
    assert played.count("finished") >= 2, played
    assert "no faults" in played


def test_a_bot_that_cannot_start_is_refused_with_what_it_said_and_not_registered(
    server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken.py").write_text(
        "import sys\nprint('no module named strategy', file=sys.stderr)\nsys.exit(2)\n"
    )
    monkeypatch.chdir(tmp_path)
    err = one_line_error(
        server, "bot", "add", "broken", "-g", "kingdoms", "-c", f"{sys.executable} broken.py"
    )
    assert "exited with code 2" in err and "no module named strategy" in err
    assert "--no-check" in err
    assert [bot.name for bot in bots.list_bots(server.server.db)] == []
    err = one_line_error(server, "bot", "add", "lost", "-g", "kingdoms", "-c", ".venv/bin/python -m x")
    assert "no such file" in err
    # Registered anyway on request; `bot check` then says what is wrong, and exits non-zero.
    ok(server, "bot", "add", "broken", "-g", "kingdoms", "-c", f"{sys.executable} broken.py", "--no-check")
    code, _, err = invoke(server, "bot", "check", "broken")
    assert code != 0 and "no module named strategy" in err
    ok(server, "bot", "add", "fine", "-g", "kingdoms", "-c", RANDOM)
    assert "ok, the bot said hello" in ok(server, "bot", "check", "fine")


def test_reinstate_edit_and_remove_a_bot(server: BackgroundServer) -> None:
    db = server.server.db
    ok(server, "bot", "add", "solid", "-g", "kingdoms", "-c", RANDOM)
    assert "is not suspended" in one_line_error(server, "bot", "reinstate", "solid")
    with db.transaction() as session:  # as the fault policy would after three crashes
        row = bots.find_bot(session, "solid")
        row.suspended_reason = "suspended after 3 faults"
        session.add(row)
    assert "now active" in ok(server, "bot", "reinstate", "solid")
    out = ok(server, "bot", "edit", "solid", "-g", "kingdoms", "-g", "kings_road")
    assert "kingdoms, kings_road" in out
    assert bots.get_bot(db, "solid").games == ("kingdoms", "kings_road")
    assert "unknown game" in one_line_error(server, "bot", "edit", "solid", "-g", "chess")
    assert "no bot named 'ghost'" in one_line_error(server, "bot", "edit", "ghost", "-g", "kingdoms")
    ok(server, "bot", "add", "partner", "-g", "kingdoms", "-c", RANDOM)
    ok(server, "bot", "remove", "solid")
    assert "removed" in ok(server, "bot", "show", "solid")
    # Kept in the history, never scheduled again.
    err = one_line_error(
        server, "league", "create", "after", "-g", "kingdoms", "-b", "solid", "-b", "partner"
    )
    assert "was removed" in err
    assert "was removed" in one_line_error(server, "bot", "enable", "solid")


def test_a_league_is_paused_resumed_and_stopped(server: BackgroundServer) -> None:
    db = server.server.db
    for name in ("a", "b", "c"):
        ok(server, "bot", "add", name, "-g", "kingdoms", "-c", RANDOM)
    ok(server, "league", "create", "long", "-g", "kingdoms", "-b", "a", "-b", "b", "-b", "c", "--rounds", "6")
    league_id = leagues.get_league(db, "long").id
    ok(server, "league", "resume", "long")
    wait_for(lambda: league_progress(db, league_id)[MatchStatus.FINISHED] >= 2)
    assert "paused" in ok(server, "league", "pause", "long")
    wait_for(lambda: league_progress(db, league_id)[MatchStatus.RUNNING] == 0)
    held = league_progress(db, league_id)
    time.sleep(1.0)
    assert league_progress(db, league_id) == held, "a paused league starts nothing"
    assert held[MatchStatus.SCHEDULED] > 0
    assert "paused by an admin" in ok(server, "league", "status", "long")
    ok(server, "league", "resume", "long")
    wait_for(lambda: league_progress(db, league_id)[MatchStatus.FINISHED] > held[MatchStatus.FINISHED])
    out = ok(server, "league", "stop", "long")
    assert "stopped by an admin" in out
    wait_for(lambda: league_progress(db, league_id)[MatchStatus.RUNNING] == 0)
    counts = league_progress(db, league_id)
    assert counts[MatchStatus.SCHEDULED] == 0 and counts[MatchStatus.CANCELLED] > 0
    assert leagues.get_league(db, "long").finished
    assert all(m.status in ("finished", "cancelled") for m in list_matches(db, league="long", limit=100))
    assert "finished" in one_line_error(server, "league", "resume", "long")


def test_league_run_of_an_unknown_league_prints_only_the_error(server: BackgroundServer) -> None:
    code, out, err = invoke(server, "league", "run", "nowhere")
    assert code != 0
    assert out.strip() == ""
    assert err.strip() == "error: no league named 'nowhere'"


def test_a_league_can_hold_its_live_boards_back(server: BackgroundServer) -> None:
    for name in ("x", "y"):
        ok(server, "bot", "add", name, "-g", "kingdoms", "--no-check")
    ok(server, "league", "create", "late", "-g", "kingdoms", "-b", "x", "-b", "y", "--live-delay", "30")
    assert leagues.get_league(server.server.db, "late").settings["live_delay_s"] == 30
    ok(server, "league", "create", "live", "-g", "kingdoms", "-b", "x", "-b", "y")
    assert "live_delay_s" not in leagues.get_league(server.server.db, "live").settings
    error = one_line_error(server, "league", "create", "later", "-g", "kingdoms", "-b", "x", "-b", "y",
                           "--live-delay", "100000")  # fmt: skip
    assert "--live-delay': Input should be less than or equal to 86400" in error  # at the edge
    created = [league.name for league in leagues.list_leagues(server.server.db)]
    assert created == ["late", "live"]  # the refused one was not created
    code, _, err = invoke(
        server, "league", "create", "early", "-g", "kingdoms", "-b", "x", "-b", "y", "--live-delay", "-1"
    )
    assert code == 2 and "greater than or equal to 0" in err  # refused by the command line itself


def wait_for(condition: object, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_server_leaves_no_temporary_files_and_clears_those_of_a_killed_one(tmp_path: Path) -> None:
    from kingmaker.server.jail.run_folder import PREFIX, make_run_folder, remove_stale_run_folders

    dead = tmp_path / f"{PREFIX}dead"
    (dead / "kingmaker-bot-x").mkdir(parents=True)
    (dead / "pid").write_text("999999999")  # no such process: its server was killed
    alive = tmp_path / f"{PREFIX}alive"
    alive.mkdir()
    (alive / "pid").write_text(str(os.getpid()))
    assert remove_stale_run_folders(tmp_path) == [dead]
    assert alive.exists() and not dead.exists()
    folder = make_run_folder()
    try:
        assert (folder / "pid").read_text() == str(os.getpid())
    finally:
        shutil.rmtree(folder)


def test_a_stopped_server_removes_its_run_folder_with_its_bots_files(kingmaker_home: Path) -> None:
    from kingmaker.server.app import ServerConfig

    running = BackgroundServer(ServerConfig(address="127.0.0.1:0"))
    folder = running.server.run_folder
    try:
        assert folder is not None
        ok(running, "match", "run", "kingdoms", "--seat", RANDOM, "--seat", RANDOM)
    finally:
        running.stop()
    assert not folder.exists()
