"""Bot folders on the server's machine: `bot add --path` builds and validates one as a
submission; `match run --seat NAME=DIR` builds one and plays it; a file the run command needs
that the build did not make is named with its path, not as a launcher's traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from submission_bots import c_bot, python_bot, write
from typer.testing import CliRunner

from kingmaker.ladder.bots import bots, versions
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.jail.sandbox import bubblewrap

pytestmark = pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")

runner = CliRunner()


def cli(server: BackgroundServer, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--server", server.address])
    return result.exit_code, result.stdout, result.stderr


def test_bot_add_path_builds_and_validates_the_folder_as_version_1(
    server: BackgroundServer, tmp_path: Path
) -> None:
    code, out, err = cli(
        server, "bot", "add", "folder-bot", "-g", "kingdoms", "--path", str(c_bot(tmp_path / "c"))
    )
    assert code == 0, err
    assert "building its version 1" in out and "folder-bot version 1 is active" in out
    db = server.server.db
    bot = bots.get_bot(db, "folder-bot")
    assert bot.active_version == 1 and bot.active and bot.command == ("./bot",)
    assert versions.get_version(db, "folder-bot").protocol == "json-lines"


def test_match_run_seats_bot_folders_built_per_their_manifest(
    server: BackgroundServer, tmp_path: Path
) -> None:
    helped, cbot = python_bot(tmp_path / "helped"), c_bot(tmp_path / "cbot")
    code, out, err = cli(
        server, "match", "run", "kingdoms", "--seat", f"mine={helped}", "--seat", f"c={cbot}"
    )
    assert code == 0, err or out
    assert "mine" in out and "finished" in out and out.count("finished") >= 2


def test_a_run_command_missing_from_the_built_folder_is_named_with_its_path(
    server: BackgroundServer, tmp_path: Path
) -> None:
    folder = write(
        tmp_path / "mine", {"kingmaker.toml": 'run = "./bot"\nbuild = "true"\n', "bot.c": "int x;\n"}
    )
    code, _, err = cli(
        server, "match", "run", "kingdoms", "--seat", f"mine={folder}", "--seat", f"other={folder}"
    )
    assert code == 1
    assert err.strip() == (
        "error: seat mine: ./bot is not in its built folder (/bot); files there: bot.c, kingmaker.toml"
    )


def test_a_folder_whose_build_fails_is_refused_with_the_builds_last_lines(
    server: BackgroundServer, tmp_path: Path
) -> None:
    broken = c_bot(tmp_path / "broken", source="int main(void) { return nowhere; }\n")
    code, _, err = cli(server, "match", "run", "kingdoms", "--seat", f"b={broken}", "--seat", f"c={broken}")
    assert code == 1
    assert len(err.strip().splitlines()) == 1
    assert "seat b: the build failed with exit code 2" in err and "nowhere" in err
