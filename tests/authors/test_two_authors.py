"""Issue 24's story through a real server and the command line: the admin adds two authors; ann
logs in and submits a Python bot with a helper module and a C bot built by make, both pass
validation and play a league; ben can neither submit to, disable, read the logs or the build log
of, nor see the token of ann's bots; ben's failing build shows ben his compiler error, and his bot
keeps its previous version. (Every RPC as every caller is in test_permissions.py.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from submission_bots import c_bot, python_bot
from typer.testing import CliRunner

from kingmaker.ladder.bots import bots, versions
from kingmaker.ladder.matches.history import list_matches
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.jail.sandbox import bubblewrap

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not bubblewrap().usable, reason="builds run in the jail")]

runner = CliRunner()


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def token_in(printed: str) -> str:
    return next(word for word in printed.split() if word.startswith("km_"))


def test_two_authors_each_with_their_own(server: BackgroundServer, tmp_path: Path, config: Path) -> None:
    admin = ["--server", server.address, "--admin-token", server.admin_token]
    tokens = {}
    for name in ("ann", "ben"):
        code, out, err = cli("author", "add", name, *admin)
        assert code == 0, err
        tokens[name] = token_in(out)
    # From here on, commands run as the authors do: away from the server's home, logged in.
    token_file = Path(os.environ["KINGMAKER_HOME"]) / "admin-token"
    token_file.rename(token_file.with_name("away"))
    try:
        as_ben = ["--server", server.address, "--token", tokens["ben"]]
        code, _, err = cli("login", "--server", server.address, "--token", tokens["ann"])
        assert code == 0, err

        # ann: two bots, built and validated, then in a league.
        code, out, err = cli(
            "submit", str(python_bot(tmp_path / "helped")), "--bot", "ann-py", "-g", "kingdoms"
        )
        assert code == 0 and "ann-py version 1 is active" in out, out + err
        code, out, err = cli("submit", str(c_bot(tmp_path / "cbot")), "--bot", "ann-c", "-g", "kingdoms")
        assert code == 0 and "ann-c version 1 is active" in out, out + err
        db = server.server.db
        assert {bots.get_bot(db, name).author for name in ("ann-py", "ann-c")} == {"ann"}
        code, _, err = cli(
            "league", "create", "authors", "-g", "kingdoms", "-b", "ann-py", "-b", "ann-c", *admin
        )
        assert code == 0, err
        code, _, err = cli("league", "run", "authors", *admin)
        assert code == 0, err
        played = list_matches(db, league="authors")
        assert played and all(match.status == "finished" for match in played)
        assert {seat.version for match in played for seat in match.seats} == {1}

        # ben: nothing of ann's bots but what is public.
        for command, said in (
            (["submit", str(python_bot(tmp_path / "ben-try")), "--bot", "ann-py"], "ann-py is not your bot"),
            (["bot", "disable", "ann-py"], "ann-py is not your bot"),
            (["bot", "logs", "ann-py"], "ann-py is not your bot"),
            (["bot", "rotate-token", "ann-c"], "ann-c is not your bot"),
            (["bot", "rollback", "ann-c", "1"], "ann-c is not your bot"),
        ):
            code, out, err = cli(*command, *as_ben)
            assert code == 1 and said in err, (command, out, err)
        assert versions.get_version(db, "ann-py").number == 1, "ben's submission stored nothing"
        assert bots.get_bot(db, "ann-py").enabled
        code, out, err = cli("bot", "build-log", "ann-c", "1", *as_ben)
        assert code == 0 and "cc -O2" not in out, "ann's build log is hers"
        code, out, _ = cli("bot", "build-log", "ann-c", "1")  # ann, logged in
        assert "cc -O2 -o bot bot.c" in out

        # ben's own C bot: a first version plays; a second does not build, and he sees why.
        code, out, err = cli(
            "submit", str(c_bot(tmp_path / "ben-v1")), "--bot", "ben-c", "-g", "kingdoms", *as_ben
        )
        assert code == 0 and "ben-c version 1 is active" in out, out + err
        broken = c_bot(tmp_path / "ben-v2", source="int main(void) { return not_declared_here; }\n")
        code, out, err = cli("submit", str(broken), "--bot", "ben-c", *as_ben)
        assert code == 1 and "not_declared_here" in err
        code, out, _ = cli("bot", "build-log", "ben-c", "2", *as_ben)
        assert "build_failed" in out and "not_declared_here" in out
        assert bots.get_bot(db, "ben-c").active_version == 1, "his previous version plays on"
        assert bots.get_bot(db, "ben-c").author == "ben"
    finally:
        token_file.with_name("away").rename(token_file)
