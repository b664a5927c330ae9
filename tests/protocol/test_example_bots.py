"""The example bots of two languages without a kit, PHP and Perl (sample_bots/php, sample_bots/perl),
play every game through the bridge, launched in the jail like any bot: legally, every decision
their own, and better than the random bot (each seeded, so a run is repeatable). And a PHP and a
Perl bot that warn at every request keep a clean record: their warnings are their own output."""

from __future__ import annotations

import shutil

import pytest
from protocol_support import bridged, end_reasons, kingmaker_command, run_match

from kingmaker.games.registry import game_names
from kingmaker.server.background import BackgroundServer

from support import REPO, bot_command

MATCHES = 6
"""Per game, the example bot in seat 0 then 1 by turns."""
EXAMPLES = {
    "php": ("php", str(REPO / "sample_bots" / "php" / "bot.php")),
    "perl": ("perl", str(REPO / "sample_bots" / "perl" / "bot.pl")),
}
COMPACT = {"perl"}
"""Reads the compact form (docs/protocol.md, "The compact form")."""


def example(language: str, seed: int) -> list[str]:
    if shutil.which(language) is None:
        pytest.skip(f"{language} is not installed (scripts/install-system-deps installs it)")
    command = [*EXAMPLES[language], "--seed", str(seed)]
    if language in COMPACT:
        return [*kingmaker_command(), "bridge", "--compact", "--", *command]
    return bridged(*command)


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("language", sorted(EXAMPLES))
def test_an_example_bot_plays_legally_and_beats_the_random_bot(
    server: BackgroundServer, language: str, game: str
) -> None:
    score = 0.0
    for number in range(MATCHES):
        mine = number % 2
        seats = [("random", [*bot_command("random_bot.py"), "--seed", str(number)])]
        seats.insert(mine, (language, example(language, number)))
        record = run_match(server, game, seats, seed=100 + number, decision_ms=2000)
        assert end_reasons(record) == ["FINISHED", "FINISHED"], record.seats[mine].detail
        assert record.seats[mine].strikes == 0
        sources = {a.source for joint in record.decisions for a in joint.actions if a.seat == mine}
        assert sources == {"bot"}, "every decision was the bot's own"
        ranks = (record.seats[mine].rank, record.seats[1 - mine].rank)
        score += 1.0 if ranks[0] < ranks[1] else 0.5 if ranks[0] == ranks[1] else 0.0
    assert score > MATCHES / 2 + 1, f"{language} scored {score} of {MATCHES} against the random bot"


@pytest.mark.parametrize("language", ["php", "perl"])
def test_a_bot_that_warns_in_the_jail_keeps_a_clean_record(server: BackgroundServer, language: str) -> None:
    program = REPO / "sample_bots" / "faulty" / f"warns.{'php' if language == 'php' else 'pl'}"
    if shutil.which(language) is None:
        pytest.skip(f"{language} is not installed (scripts/install-system-deps installs it)")
    seats = [(language, bridged(language, str(program))), ("random", bot_command("random_bot.py"))]
    record = run_match(server, "kingdoms", seats, decision_ms=2000)
    assert end_reasons(record) == ["FINISHED", "FINISHED"], record.seats[0].detail
    assert record.seats[0].strikes == 0
    sources = {a.source for joint in record.decisions for a in joint.actions if a.seat == 0}
    assert sources == {"bot"}
