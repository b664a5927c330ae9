"""A kit's local play works whether or not its author has logged in to a club's server (issue 47,
finding 6): the README's commands name this machine's own server (``-s local``), so once `kingmaker
login` has saved a club's address they still register and play the bot here. Before, they went
to the club's server, which refused to run a command from the author's folder.

Two servers run: the club's, which the author logs in to, and the one of this machine's home.
The kit's README block is run as written, line by line."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.kits.starter import write_kit
from kingmaker.ladder.bots import authors, bots
from kingmaker.ladder.errors import NotFoundError
from kingmaker.ladder.matches.history import list_matches
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.cli.common import server_address
from kingmaker.server.locations import DEFAULT_ADDRESS, local_address

runner = CliRunner()


def started(home: Path, monkeypatch: pytest.MonkeyPatch) -> BackgroundServer:
    monkeypatch.setenv("KINGMAKER_HOME", str(home))
    return BackgroundServer(
        ServerConfig(address="127.0.0.1:0", jail=False, resume_leagues=False, connect_timeout=30.0)
    )


@pytest.fixture
def club_and_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[BackgroundServer, ...]]:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("KINGMAKER_SERVER", "KINGMAKER_ADMIN_TOKEN", "KINGMAKER_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    # The kit's commands start `python3` and `python`: this environment's, with kingmaker.
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    club = started(tmp_path / "club", monkeypatch)
    try:
        here = started(tmp_path / "home", monkeypatch)  # the home the commands below use
        try:
            yield club, here
        finally:
            here.stop()
    finally:
        club.stop()


def readme_block(readme: str) -> list[list[str]]:
    """The commands of the README's "Play it against the sample bots" block, each split into words."""
    section = readme[readme.index("## Play it against the sample bots") :]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        assert words[0] == "kingmaker", line
        commands.append(words[1:])
    return commands


def test_a_kits_local_play_plays_here_after_logging_in_to_a_club(
    club_and_here: tuple[BackgroundServer, BackgroundServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    club, here = club_and_here
    _, token = authors.add_author(club.server.db, "ann")
    logged_in = runner.invoke(app, ["login", "--server", club.address, "--token", token])
    assert logged_in.exit_code == 0, logged_in.output
    assert local_address() == here.address, "`local` is the server of this home"
    kit = write_kit(tmp_path / "annbot", "python", ["kingdoms"])
    monkeypatch.chdir(kit)

    commands = readme_block((kit / "README.md").read_text())
    assert commands[0][:2] == ["bot", "add"] and "--workdir" in commands[0]
    # Without the README's `-s local`, the first command goes to the club, which refuses it.
    club_add = runner.invoke(app, [word for word in commands[0] if word not in ("-s", "local")])
    assert club_add.exit_code != 0
    for command in commands:
        done = runner.invoke(app, command)
        assert done.exit_code == 0, f"kingmaker {shlex.join(command)}: {done.output}"
    assert "finished" in done.output, done.output  # `match show 1`

    (played,) = list_matches(here.server.db)
    seated = {bots.get_bot(here.server.db, name).id for name in ("annbot", "random")}
    assert played.status == "finished" and {seat.bot_id for seat in played.seats} == seated
    for name in ("annbot", "random"):
        with pytest.raises(NotFoundError):
            bots.get_bot(club.server.db, name)


def test_with_no_server_here_local_is_where_serve_listens_by_default(
    kingmaker_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert local_address() == DEFAULT_ADDRESS
    monkeypatch.setenv("KINGMAKER_SERVER", "local")
    assert server_address(None) == DEFAULT_ADDRESS
