"""Small lies the club trial found in the command line, each one fixed: `author add` names the
server's real address; another author's managed bot is "managed", not "(remote)"; another
author's build log is private, not "(the build printed nothing)"; a bot with no match shows a
dash in the ladder, not 0.00; `bot builds`' reasons stay readable at 80 columns."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kingmaker.ladder.bots import authors, bots, versions
from kingmaker.ladder.storage.models import VersionStatus
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app
from kingmaker.server.cli.common import console

runner = CliRunner()
REASON = (
    "the build failed (exit code 2): cc: error: unrecognized command-line option '-Wfoo'; "
    "see bot build-log benbot 1"
)


def run(server: BackgroundServer, token: str, *args: str) -> str:
    result = runner.invoke(app, [*args, "--server", server.address, "--admin-token", token])
    assert result.exit_code == 0, result.stderr or result.stdout
    return result.stdout


@pytest.fixture
def club(server: BackgroundServer, config: Path) -> dict[str, str]:
    """ann and ben; ben has a managed bot with a version whose build failed and printed nothing."""
    db = server.server.db
    _, ann = authors.add_author(db, "ann")
    ben_author, ben = authors.add_author(db, "ben")
    bots.register_bot(db, "benbot", ["kingdoms"], [sys.executable, "-c", "pass"], author_id=ben_author.id)
    submitted = versions.start_submission(db, "benbot", ["kingdoms"], "0" * 64, ben_author.id)
    versions.mark_failed(db, "benbot", submitted.number, VersionStatus.BUILD_FAILED, REASON, "")
    return {"ann": ann, "ben": ben, "admin": server.admin_token, "version": str(submitted.number)}


def test_author_add_names_the_server_it_was_given(server: BackgroundServer, config: Path) -> None:
    out = run(server, server.admin_token, "author", "add", "cleo")
    assert f"kingmaker login --server {server.address} --token km_" in out
    assert "ADDRESS" not in out
    assert "this machine's own address" in out, "a loopback address is useless from another machine"


def test_another_authors_managed_bot_is_managed(server: BackgroundServer, club: dict[str, str]) -> None:
    out = run(server, club["ann"], "bot", "show", "benbot")
    assert "benbot (managed)" in out, out
    assert "remote" not in out


def test_another_authors_build_log_is_private_not_empty(
    server: BackgroundServer, club: dict[str, str]
) -> None:
    out = run(server, club["ann"], "bot", "build-log", "benbot", club["version"])
    assert "private" in out and "printed nothing" not in out, out
    out = run(server, club["ben"], "bot", "build-log", "benbot", club["version"])
    assert "(the build printed nothing)" in out, "its owner is told the truth: it printed nothing"


def test_a_bot_with_no_match_shows_a_dash_in_the_ladder(
    server: BackgroundServer, club: dict[str, str]
) -> None:
    out = run(server, club["admin"], "ladder", "kingdoms")
    row = next(line for line in out.splitlines() if "benbot" in line)
    cells = row.split()
    assert cells[2] == "-" and cells[7] == "-", row  # mu-3σ and average place
    assert cells[5] == "0", row  # matches: a count, zero as it is


def test_bot_builds_reasons_stay_whole_at_80_columns(
    server: BackgroundServer, club: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(console, "width", 80)
    out = run(server, club["ben"], "bot", "builds", "benbot")
    assert all(len(line) <= 80 for line in out.splitlines()), out
    assert any("the build failed (exit code 2): cc: error" in line for line in out.splitlines()), out
