"""The command line against a real server: a match, and every bad input as one clear line."""

from __future__ import annotations

import json
import re
import socket

import pytest
from typer.testing import CliRunner

from kingmaker.ladder.bots import bots
from kingmaker.server.background import BackgroundServer
from kingmaker.server.cli import app

from support import bot_command

runner = CliRunner()
RANDOM = " ".join(bot_command("random_bot.py"))


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_match_run_prints_every_seat_and_match_show_finds_it(server: BackgroundServer) -> None:
    code, out, err = invoke(
        "match", "run", "kingdoms", "--server", server.address, "--seat", f"alice={RANDOM}",
        "--seat", f"bob={RANDOM}", "--seed", "4", "--option", "score_as_you_go=true",
    )  # fmt: skip
    assert code == 0, err
    assert "alice" in out and "bob" in out and "finished" in out
    match_id = out.split("match ", 1)[1].split()[0]
    # Not a stored match: the command says so, and how to see it again.
    assert f"unstored kingdoms match {match_id}" in out and f"match {match_id} is not stored" in out
    assert f"kingmaker match show {match_id}" in out and "not on the website" in out
    code, shown, err = invoke("match", "show", match_id, "--server", server.address)
    assert code == 0, err
    assert match_id in shown and "alice" in shown
    code, listed, err = invoke("match", "list", "--json", "--server", server.address)
    assert code == 0, err
    [one_off] = json.loads(listed)["matches"]  # a match between commands is listed too
    assert one_off["match_id"] == match_id and one_off["league"] == ""
    assert [seat["bot"] for seat in one_off["seats"]] == ["alice", "bob"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["match", "run", "chess", "--seat", RANDOM, "--seat", RANDOM], "unknown game 'chess'"),
        (["match", "run", "kingdoms", "--seat", RANDOM], "kingdoms is for 2 to 4 players, not 1"),
        (
            ["match", "run", "kingdoms", "--seat", RANDOM, "--seat", RANDOM, "-o", "tempo=3"],
            "no option 'tempo'",
        ),
        (["match", "run", "kingdoms", "--seat", RANDOM, "--seat", RANDOM, "-o", "no_luck=3"], "takes a bool"),
        (
            ["match", "run", "kingdoms", "--seat", "/no/such/bot", "--seat", RANDOM],
            "cannot start '/no/such/bot'",
        ),
        (["match", "show", "nope"], "no match 'nope'"),
    ],
)
def test_bad_input_gets_one_clear_line_and_a_non_zero_exit(
    server: BackgroundServer, args: list[str], message: str
) -> None:
    code, _, err = invoke(*args, "--server", server.address)
    assert code != 0
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_a_wrong_token_is_refused(server: BackgroundServer) -> None:
    code, _, err = invoke("match", "show", "x", "--server", server.address, "--admin-token", "wrong")
    assert code != 0
    assert "refused the call: the server does not know this token" in err


def test_an_unreachable_server_is_one_clear_line(kingmaker_home: object) -> None:
    code, _, err = invoke("match", "show", "x", "--server", "127.0.0.1:1", "--admin-token", "t")
    assert code == 1
    assert "cannot reach the server at 127.0.0.1:1" in err


def test_a_malformed_option_is_a_usage_error(kingmaker_home: object) -> None:
    code, _, err = invoke("match", "run", "kingdoms", "--seat", RANDOM, "-o", "novalue", "--admin-token", "t")
    assert code == 2
    assert "expected NAME=VALUE" in err


def test_one_bot_in_two_seats_is_refused_in_one_line_and_the_help_says_so(server: BackgroundServer) -> None:
    """A match rates each seat's bot against the others, so a registered bot takes one seat at most;
    ``match run --help`` says so, and how to play a bot against itself (README too)."""
    bots.register_bot(server.server.db, "mirror", ["kingdoms"], tuple(bot_command("random_bot.py")))
    code, _, err = invoke(
        "match", "run", "kingdoms", "--bot", "mirror", "--bot", "mirror", "--server", server.address
    )
    assert code != 0
    assert "a bot may take only one seat in a match" in err
    assert len(err.strip().splitlines()) == 1
    boxed = runner.invoke(app, ["match", "run", "--help"]).stdout
    helped = " ".join(re.sub("[│╭╮╰╯─]", " ", boxed).split())  # rich's box drawn round the options
    assert "A bot takes one seat at most" in helped


def test_a_server_that_takes_connections_but_does_not_answer_is_called_busy_not_unreachable(
    kingmaker_home: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kingmaker.server.cli import common

    monkeypatch.setattr(common, "CONNECT_WAIT_SECONDS", 0.5)
    monkeypatch.setattr(common, "BUSY_WAIT_SECONDS", 1.5)
    with socket.socket() as silent:  # the kernel accepts connections; nothing ever answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        code, _, err = invoke("match", "show", "x", "--server", address, "--admin-token", "t")
    assert code == 1
    assert f"the server at {address} takes connections but did not answer" in err
    assert "cannot reach" not in err
