"""``kingmaker duel``: it decides a clear match-up, and bad input gets one line and exit 1."""

from __future__ import annotations

import multiprocessing
import re

import pytest
from typer.testing import CliRunner

from kingmaker.sdk.duplicate import arrangements, pairwise_score
from kingmaker.server.cli import app

runner = CliRunner()


def test_heuristic_beats_random_and_the_sprt_says_so() -> None:
    result = runner.invoke(app, ["duel", "heuristic", "random", "-g", "kings_road", "--max-matches", "60"])
    assert result.exit_code == 0, result.output
    assert "H1 accepted: heuristic is stronger than random" in result.output
    assert "LLR" in result.output  # the live lines
    # At Elo 0 vs 50 no fewer than 23 seeds can accept H1, even a clean sweep (docs/writing-a-bot.md).
    seeds = re.search(r"\((\d+) seeds\)", result.output)
    assert seeds is not None and int(seeds[1]) >= 23
    # Elo as fastchess prints it, diff ± half-width, beside the interval of its ends.
    assert re.search(r"Elo\s+[+-]\d+\s+±\s+(\d+|inf)\s+\[[+-]\d+,\s+[+-]\d+\]", result.output)


def test_equal_bots_run_out_of_matches_or_accept_h0() -> None:
    result = runner.invoke(
        app, ["duel", "random", "random", "-g", "kings_road", "--max-matches", "8", "--elo1", "400"]
    )
    assert result.exit_code == 0, result.output
    assert "H1 accepted" not in result.output
    assert "8 matches" in result.output


def test_three_seats_play_every_arrangement() -> None:
    result = runner.invoke(
        app, ["duel", "heuristic", "random", "-g", "kings_road", "-p", "3", "--max-matches", "6"]
    )
    assert result.exit_code == 0, result.output
    assert "6 seat orders per seed" in result.output


def test_jobs_play_seeds_at_once_and_print_what_one_job_prints() -> None:
    """Seeds done out of order are still taken in seed order, so the SPRT's lines and verdict
    match one job's; when it decides, the seeds still in play are dropped with their workers."""
    args = ["duel", "heuristic", "random", "-g", "kings_road", "--max-matches", "200"]
    one = runner.invoke(app, args)
    three = runner.invoke(app, [*args, "--jobs", "3"])
    assert one.exit_code == 0 and three.exit_code == 0, three.output
    assert "H1 accepted" in one.output
    assert three.output == one.output
    assert multiprocessing.active_children() == []


def test_arrangements_and_pairwise_places() -> None:
    assert arrangements(2) == [(True, False), (False, True)]
    assert len(arrangements(3)) == 6
    # A first and third, B second: pairs (A1 v B2) won, (A3 v B2) lost.
    assert pairwise_score((1, 2, 3), (True, False, True)) == 0.5
    assert pairwise_score((1, 1), (True, False)) == 0.5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["duel", "random", "random", "-g", "chess"], "unknown game 'chess'"),
        (["duel", "nobody", "random", "-g", "kingdoms"], "'nobody' is no local bot"),
        (["duel", "random", "no.such.module:Bot", "-g", "kingdoms"], "cannot load bot"),
        (["duel", "random", "search:x", "-g", "kingdoms"], "search:N takes a positive number"),
        (["duel", "random", "random", "-g", "kingdoms", "--elo0", "5", "--elo1", "5"], "elo0 must be below"),
        (["duel", "random", "random", "-g", "kingdoms", "--alpha", "0"], "alpha must be between"),
        (["duel", "random", "random", "-g", "kingdoms", "-p", "9"], "for 2 to 4 players"),
    ],
)
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
