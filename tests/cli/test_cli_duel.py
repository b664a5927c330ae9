"""``kingmaker duel``: it decides a clear match-up, and bad input gets one line and exit 1."""

from __future__ import annotations

import multiprocessing
import re

import pytest
from typer.testing import CliRunner

from kingmaker.sdk.duplicate import arrangements, pairwise_score
from kingmaker.sdk.sprt import Tally, Verdict, elo_estimate, verdict_words
from kingmaker.server.cli import app
from kingmaker.server.cli.submit import ab_line
from kingmaker.server.new_versions.ab_gate import game_result
from kingmaker.v1 import admin_pb2

runner = CliRunner()


def test_heuristic_beats_random_and_the_sprt_says_so() -> None:
    result = runner.invoke(app, ["duel", "heuristic", "random", "-g", "kings_road", "--max-matches", "60"])
    assert result.exit_code == 0, result.output
    assert "H1 accepted: heuristic is at least 50 Elo stronger than random" in result.output
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


def test_the_verdict_names_versions_and_game_and_ends_with_the_estimate() -> None:
    units = Tally.of([0.5, 0.75, 0.25, 0.5] * 30)
    result = game_result("annbot", 3, 2, "kingdoms", 240, units, Verdict.H1, at_cap=False)
    assert result.passed
    elo, half = elo_estimate(units)
    estimate = f"{elo:+.0f} ± {half:.0f} Elo"
    assert result.line() == f"annbot v3 vs v2, kingdoms: 240 matches, {estimate}: not weaker (accepted)"
    capped = game_result(
        "annbot", 3, 2, "kingdoms", 800, Tally.of([0.5, 0.25]), Verdict.CONTINUE, at_cap=True
    )
    assert not capped.passed
    assert capped.line().endswith("Elo: weaker at the cap, by the LLR's sign (rejected)")
    stopped = game_result(
        "annbot", 3, 2, "kings_road", 0, Tally(), Verdict.CONTINUE, at_cap=False, stopped="stopped: bob: away"
    )
    assert not stopped.passed
    assert (
        stopped.line()
        == "annbot v3 vs v2, kings_road: 0 matches, +0 ± inf Elo: no verdict, stopped: bob: away (rejected)"
    )


def test_an_ab_duels_lines_name_the_versions_and_the_game() -> None:
    """``submit --ab`` prints each game's duel seed by seed in plain words (the games play side by
    side, so each line names its game), with the LLR and its bounds, then the gate's verdict."""
    playing = admin_pb2.DuelProgress(
        game="kingsburg", against=2, seeds=6, matches=12, score=0.5, elo=0, elo_half_width=80, llr=0.4,
        llr_lower=-3.48, llr_upper=3.48,
        words="still undecided in Kingsburg: 12 of at most 800 matches against v2, +0 ± 80 Elo, "
        "about 6 min left",
    )  # fmt: skip
    line = ab_line("annbot", 3, playing)
    assert line == (
        "  A/B annbot v3: still undecided in Kingsburg: 12 of at most 800 matches against v2, +0 ± 80 Elo, "
        "about 6 min left (LLR +0.40; it decides at -3.48 or +3.48)"
    )
    done = admin_pb2.DuelProgress(
        game="kingsburg", against=2, done=True, reason="annbot v3 vs v2, kingsburg: ...",
        words="not weaker than v2 in Kingsburg: 212 matches, -3 ± 14 Elo",
    )  # fmt: skip
    assert (
        ab_line("annbot", 3, done)
        == "  A/B annbot v3: not weaker than v2 in Kingsburg: 212 matches, -3 ± 14 Elo"
    )
    kept_before_words = admin_pb2.DuelProgress(
        game="kingsburg", done=True, reason="annbot v3 vs v2, kingsburg: ..."
    )
    assert ab_line("annbot", 3, kept_before_words) == "  annbot v3 vs v2, kingsburg: ..."


def test_the_gates_verdict_on_an_h0_reads_weaker() -> None:
    """The issue's "annbot is not 0 Elo stronger than annbot": the gate says weaker, with versions."""
    units = Tally.of([0.0, 0.25] * 15)
    result = game_result("annbot", 3, 2, "kingdoms", 60, units, Verdict.H0, at_cap=False)
    assert not result.passed
    assert result.line().startswith("annbot v3 vs v2, kingdoms: 60 matches, -")
    assert result.line().endswith(" Elo: weaker (rejected)")


@pytest.mark.parametrize(
    ("verdict", "elo0", "elo1", "words"),
    [
        (Verdict.H1, 0, 50, "H1 accepted: A is at least 50 Elo stronger than B"),
        (Verdict.H0, 0, 50, "H0 accepted: A is no stronger than B"),
        (Verdict.H1, -50, 0, "H1 accepted: A is at least as strong as B"),
        (Verdict.H0, -50, 0, "H0 accepted: A is at least 50 Elo weaker than B"),
    ],
)
def test_a_verdict_states_its_hypothesis_as_the_docs_do(
    verdict: Verdict, elo0: float, elo1: float, words: str
) -> None:
    """Never "annbot is not 0 Elo stronger than annbot"."""
    assert verdict_words(verdict, "A", "B", elo0, elo1) == words
