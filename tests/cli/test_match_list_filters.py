"""`kingmaker match list` keeps the matches of one bot, against one opponent, with one of its
versions, or that it won, drew or lost (issue 47), filtered by the server's query; a bad filter
is one line."""

from __future__ import annotations

import json

import pytest
from recorded_matches import recorded
from typer.testing import CliRunner

from kingmaker.ladder.bots import bots
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

runner = CliRunner()


@pytest.fixture
def played(server: BackgroundServer) -> dict[str, int]:
    """ann beats bob (v1), draws with cat (v1), loses to bob (v2); bob beats cat without ann."""
    db = server.server.db
    for name in ("ann", "bob", "cat"):
        bots.register_bot(db, name, ["kingdoms"])
    return {
        "ann beats bob": recorded(db, ["ann", "bob"], [1, 2], [1, None]),
        "ann draws cat": recorded(db, ["cat", "ann"], [1, 1], [None, 1]),
        "bob beats ann": recorded(db, ["ann", "bob"], [2, 1], [2, None]),
        "bob beats cat": recorded(db, ["bob", "cat"], [1, 2]),
    }


def listed(server: BackgroundServer, *filters: str) -> list[int]:
    answer = runner.invoke(app, ["match", "list", "--json", "--server", server.address, *filters])
    assert answer.exit_code == 0, answer.output
    return [int(match["match_id"]) for match in json.loads(answer.stdout)["matches"]]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ((), ["bob beats cat", "bob beats ann", "ann draws cat", "ann beats bob"]),
        (("--bot", "ann"), ["bob beats ann", "ann draws cat", "ann beats bob"]),
        (("--bot", "ann", "--opponent", "bob"), ["bob beats ann", "ann beats bob"]),
        (("--bot", "cat", "--opponent", "ann"), ["ann draws cat"]),
        (("--bot", "ann", "--version", "1"), ["ann draws cat", "ann beats bob"]),
        (("--bot", "ann", "--version", "2"), ["bob beats ann"]),
        (("--bot", "ann", "--result", "win"), ["ann beats bob"]),
        (("--bot", "ann", "--result", "draw"), ["ann draws cat"]),
        (("--bot", "ann", "--result", "loss"), ["bob beats ann"]),
        (("--bot", "bob", "--result", "win"), ["bob beats cat", "bob beats ann"]),
        (("--bot", "ann", "--opponent", "bob", "--result", "win", "--version", "1"), ["ann beats bob"]),
        (("--bot", "ann", "--opponent", "cat", "--result", "win"), []),
        (("--bot", "ann", "--version", "3"), []),
    ],
)
def test_each_filter_keeps_the_matches_it_names(
    server: BackgroundServer, played: dict[str, int], filters: tuple[str, ...], expected: list[str]
) -> None:
    assert listed(server, *filters) == [played[name] for name in expected]


def test_a_filtered_list_pages_in_order(server: BackgroundServer, played: dict[str, int]) -> None:
    first = runner.invoke(app, ["match", "list", "--server", server.address, "--bot", "ann", "--limit", "2"])
    assert first.exit_code == 0, first.output
    token = first.stdout.rsplit("--before ", 1)[1].split()[0]
    assert listed(server, "--bot", "ann", "--before", token) == [played["ann beats bob"]]


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        (("--bot", "ann", "--result", "won"), "result must be one of win, draw, loss, not 'won'"),
        (("--opponent", "bob"), "a filter by opponent needs the bot whose matches to list"),
        (("--result", "win"), "a filter by result needs the bot whose matches to list"),
        (("--bot", "nobody"), "no bot named 'nobody'"),
        (("--bot", "ann", "--opponent", "nobody"), "no bot named 'nobody'"),
        (("--bot", "ann", "--opponent", "ann"), "'ann' is never its own opponent"),
        (("--bot", "ann", "--version", "-1"), "Invalid value for '--version'"),
    ],
)
def test_a_bad_filter_is_one_line(
    server: BackgroundServer, played: dict[str, int], filters: tuple[str, ...], message: str
) -> None:
    answer = runner.invoke(app, ["match", "list", "--server", server.address, *filters])
    assert answer.exit_code != 0
    assert message in answer.stderr
    assert len(answer.stderr.strip().splitlines()) == 1, answer.stderr
