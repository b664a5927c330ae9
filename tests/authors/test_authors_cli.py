"""Authors through the command line and a real server: the admin registers two, one logs in and
needs no flags afterwards, owns what she adds, and cannot touch the other's bots; anyone reads
what is public with no token at all; bad tokens and bad logins change nothing."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def admin(server: BackgroundServer, *args: str) -> str:
    code, out, err = run(*args, "--server", server.address, "--admin-token", server.admin_token)
    assert code == 0, err or out
    return out


def token_in(printed: str) -> str:
    return next(word for word in printed.split() if word.startswith("km_"))


@pytest.fixture
def two_authors(server: BackgroundServer, config: Path) -> Iterator[dict[str, str]]:
    """ann and ben registered by the admin, and commands run away from the server's home."""
    tokens = {name: token_in(admin(server, "author", "add", name, "--quota", "2")) for name in ("ann", "ben")}
    token_file = Path(os.environ["KINGMAKER_HOME"]) / "admin-token"
    away = token_file.with_name("admin-token.away")
    token_file.rename(away)
    try:
        yield tokens
    finally:
        away.rename(token_file)


def test_an_author_logs_in_once_then_owns_what_she_adds_and_only_that(
    server: BackgroundServer, config: Path, two_authors: dict[str, str]
) -> None:
    code, out, err = run("login", "--server", server.address, "--token", two_authors["ann"])
    assert code == 0, err
    assert "as author ann (0 of 2 bots)" in out
    stored = config / "kingmaker" / "login.json"
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
    assert json.loads(stored.read_text()) == {"server": server.address, "token": two_authors["ann"]}

    # From now on, no --server and no token.
    code, out, err = run("whoami")
    assert code == 0 and "author ann" in out and "login.json" in out, err
    code, out, err = run("bot", "add", "anns-bot", "-g", "kingdoms")
    assert code == 0, err
    assert bots.get_bot(server.server.db, "anns-bot").author == "ann"
    code, out, err = run("bot", "disable", "anns-bot")
    assert code == 0, err

    # ben's bot, added by ben: ann may read it, not touch it.
    run("logout")
    code, _, err = run(
        "bot", "add", "bens-bot", "-g", "kingdoms", "--server", server.address, "--token", two_authors["ben"]
    )
    assert code == 0, err
    run("login", "--server", server.address, "--token", two_authors["ann"])
    for command in (
        ["bot", "disable", "bens-bot"],
        ["bot", "rotate-token", "bens-bot"],
        ["bot", "remove", "bens-bot"],
    ):
        code, out, err = run(*command)
        assert code == 1 and err.count("\n") == 1, out + err
        assert "bens-bot is not your bot" in err
    info = bots.get_bot(server.server.db, "bens-bot")
    assert info.enabled and not info.retired
    code, out, _ = run("bot", "show", "bens-bot")
    assert code == 0 and "bens-bot" in out


def test_an_author_cannot_register_a_command_the_server_would_run(
    server: BackgroundServer, config: Path, two_authors: dict[str, str]
) -> None:
    code, _, err = run(
        "bot", "add", "sneaky", "-g", "kingdoms", "-c", "python3 -c pass", "--no-check",
        "--server", server.address, "--token", two_authors["ann"],
    )  # fmt: skip
    assert code == 1 and "kingmaker submit" in err
    assert [bot.name for bot in bots.list_bots(server.server.db)] == []


def test_an_authors_quota_holds(server: BackgroundServer, config: Path, two_authors: dict[str, str]) -> None:
    flags = ["--server", server.address, "--token", two_authors["ann"]]
    for name in ("one", "two"):
        assert run("bot", "add", name, "-g", "kingdoms", *flags)[0] == 0
    code, _, err = run("bot", "add", "three", "-g", "kingdoms", *flags)
    assert code == 1 and "owns 2 bots, their quota" in err
    assert run("bot", "remove", "two", *flags)[0] == 0  # a removed bot frees its place
    assert run("bot", "add", "three", "-g", "kingdoms", *flags)[0] == 0


def test_anyone_reads_what_is_public_with_no_token(server: BackgroundServer, away_from_home: None) -> None:
    bots.register_bot(server.server.db, "public-bot", ["kingdoms"])
    for command in (["ladder", "kingdoms"], ["bot", "list"], ["league", "list"], ["match", "list"]):
        code, _, err = run(*command, "--server", server.address)
        assert code == 0, err
    assert "anyone" in run("whoami", "--server", server.address)[1]
    code, _, err = run("author", "list", "--server", server.address)
    assert code == 1 and "needs a token" in err


def test_a_wrong_token_is_refused_not_taken_for_no_token(server: BackgroundServer, config: Path) -> None:
    code, _, err = run("ladder", "kingdoms", "--server", server.address, "--token", "km_wrong")
    assert code == 1 and "does not know this token" in err
    code, _, err = run("login", "--server", server.address, "--token", "km_wrong")
    assert code == 1 and "does not know this token" in err
    assert not (config / "kingmaker" / "login.json").exists(), "a refused login stores nothing"


def test_a_disabled_or_rotated_author_is_refused_at_once(
    server: BackgroundServer, config: Path, two_authors: dict[str, str]
) -> None:
    flags = ["--server", server.address, "--token", two_authors["ann"]]
    assert run("whoami", *flags)[0] == 0
    admin(server, "author", "disable", "ann")
    assert run("bot", "add", "x", "-g", "kingdoms", *flags)[0] == 1
    admin(server, "author", "enable", "ann")
    new = token_in(admin(server, "author", "rotate", "ann"))
    assert run("bot", "add", "x", "-g", "kingdoms", *flags)[0] == 1, "the old token stopped working"
    assert run("bot", "add", "x", "-g", "kingdoms", "--server", server.address, "--token", new)[0] == 0
    listed = admin(server, "author", "list", "--json")
    assert {(a["name"], a["bots"]) for a in json.loads(listed)} == {("ann", 1), ("ben", 0)}


def test_an_author_enters_and_withdraws_her_own_bot_in_a_ladder_and_no_other(
    server: BackgroundServer, config: Path, two_authors: dict[str, str]
) -> None:
    db = server.server.db
    bots.register_bot(db, "house-1", ["kingdoms"])
    bots.register_bot(db, "house-2", ["kingdoms"])
    leagues.create_league(db, "club", "kingdoms", ["house-1", "house-2"], format="ladder", max_matches=10)
    for name in ("ann", "ben"):
        code, _, err = run(
            "bot",
            "add",
            f"{name}s-bot",
            "-g",
            "kingdoms",
            "--server",
            server.address,
            "--token",
            two_authors[name],
        )
        assert code == 0, err
    run("login", "--server", server.address, "--token", two_authors["ann"])

    code, out, err = run("league", "join", "club", "anns-bot")
    assert code == 0, err
    assert "anns-bot" in out
    code, out, err = run("league", "join", "club", "bens-bot")
    assert code != 0
    assert "bens-bot" in err, "the refusal names the bot"
    entrants = leagues.get_league(db, "club").bot_ids
    assert bots.get_bot(db, "bens-bot").id not in entrants
    assert bots.get_bot(db, "anns-bot").id in entrants
    code, out, err = run("league", "leave", "club", "anns-bot")
    assert code == 0, err
    assert "left: anns-bot" in out
