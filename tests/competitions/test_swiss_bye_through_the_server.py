"""A Swiss of an odd field at 2 seats through a real server and the command line, on a clock the
test holds, from create to winner with nobody running `competition finals`: 3 entries, 3 rounds,
so each round one pair plays and one entry sits out; nobody sits out twice while another has not,
each bye is a decision made with its round's table, and it scores what docs/competitions.md says
(1 point, as a win in chess) in the points-by-round and the standings."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from competition_support import move_clock, ok, status, wait_for

from kingmaker.ladder.competitions.competition_swiss import BYE_POINTS
from kingmaker.server.background import BackgroundServer

RANDOM = f"{sys.executable} -m kingmaker.sample_bots.random_bot"
GREEDY = f"{sys.executable} -m kingmaker.sample_bots.kingdoms.greedy_bot"
BOTS = {"greedy": GREEDY, "rand-a": RANDOM, "rand-b": RANDOM}


def test_a_swiss_of_an_odd_field_gives_each_a_bye_that_scores_a_win(
    competition_server: BackgroundServer, clock_file: Path
) -> None:
    admin = ["--server", competition_server.address, "--token", competition_server.admin_token]
    for name, command in BOTS.items():
        ok("bot", "add", name, "-g", "kingdoms", "-c", command, *admin)
    deadline = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    ok("competition", "create", "odd", "-g", "kingdoms", "--closes", deadline,
       "--finals", "swiss", "--rounds", "3", "--best-of", "1", *admin)  # fmt: skip
    for name in BOTS:
        ok("competition", "enter", "odd", name, *admin)

    move_clock(clock_file, hours=2)  # the deadline passes; the finals start by themselves
    final = wait_for("the winner", lambda: (s := status("odd", admin))["phase"] == "final" and s)

    decisions = final["decisions"]
    (started,) = [d["reason"] for d in decisions if d["kind"] == "finals"]
    assert started.startswith(f"finals started at their stated time {deadline}")
    byes = [(d["stage"], d["bot"]) for d in decisions if d["kind"] == "bye"]
    assert [stage for stage, _ in byes] == [1, 2, 3], "one bye a round"
    assert sorted(bot for _, bot in byes) == sorted(BOTS), "nobody sits out twice while another has not"
    for d in decisions:
        if d["kind"] == "bye":
            assert d["reason"] == f"{d['bot']} sits out round {d['stage']}: a bye, scored 1 as a win"

    rounds = final["swiss_rounds"]
    assert [r["stage"] for r in rounds] == [1, 2, 3]
    earned = dict.fromkeys(BOTS, 0.0)
    for shown, (stage, sat_out) in zip(rounds, byes, strict=True):
        (table,) = shown["tables"]  # 3 at 2 seats: one table of 2, one bye
        assert len(table["bots"]) == 2 and sat_out not in table["bots"]
        assert shown["byes"] == [sat_out]
        assert sum(table["points"]) == 1.0, f"round {stage}: the two seats share a win's point"
        for bot, points in zip(table["bots"], table["points"], strict=True):
            earned[bot] += points
        earned[sat_out] += BYE_POINTS
    assert BYE_POINTS == 1.0  # docs/competitions.md: a bye scores 1 point, as a win in chess
    standings = {row["bot"]: row for row in final["standings"]}
    for bot, points in earned.items():
        assert abs(standings[bot]["points"] - points) < 1e-9, (bot, standings[bot], points)
        assert standings[bot]["matches"] == 2 * 2, "two rounds played, a duplicate pair each"
    assert final["winner"] == final["standings"][0]["bot"]
    assert final["standings"][0]["points"] == max(earned.values())
    shown = ok("competition", "status", "odd", *admin)
    assert "(Buchholz" in shown and f"winner: {final['winner']}" in shown
