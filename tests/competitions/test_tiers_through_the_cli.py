"""Tiers through a real server and the command line, on a clock the test holds: the admin makes a
competition whose lowest tier is guarded by a random bot; a greedy bot entered there beats it, is
promoted by the server's clock (once, for its results against the boss in that tier) and plays on
in the next tier's ladder against that tier's boss; ``competition status`` and the website show the
tiers and each entry's tier; the boss is refused as an entry and never promoted; at the deadline
one entry cannot fill a finals match, and the competition ends rather than wait."""

from __future__ import annotations

import json
import sys
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

from competition_support import cli, move_clock, ok, status, wait_for

from kingmaker.server.background import BackgroundServer
from kingmaker.server.web.serve import BackgroundWebServer

RANDOM = f"{sys.executable} -m kingmaker.sample_bots.random_bot"
GREEDY = f"{sys.executable} -m kingmaker.sample_bots.kingdoms.greedy_bot"


def test_a_greedy_entry_beats_the_random_boss_and_is_promoted(
    competition_server: BackgroundServer, clock_file: Path
) -> None:
    admin = ["--server", competition_server.address, "--token", competition_server.admin_token]
    for name, command in (("wood-boss", RANDOM), ("gold-boss", GREEDY), ("greedy", GREEDY)):
        ok("bot", "add", name, "-g", "kingdoms", "-c", command, *admin)
    deadline = (datetime.now(UTC) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    code, _, err = cli("competition", "create", "bad", "-g", "kingdoms", "--closes", deadline,
                       "--tier", "wood", "--tier", "gold", *admin)  # fmt: skip
    assert code != 0 and "tier 'wood' needs a boss" in err and len(err.strip().splitlines()) == 1
    ok("competition", "create", "season", "-g", "kingdoms", "--closes", deadline,
       "--tier", "wood=wood-boss", "--tier", "gold=gold-boss", "--promote-after", "3",
       "--relegate-after", "50", *admin)  # fmt: skip
    code, _, err = cli("competition", "enter", "season", "wood-boss", *admin)
    assert code != 0 and "wood-boss is a boss" in err
    ok("competition", "enter", "season", "greedy", *admin)
    assert [e["tier"] for e in status("season", admin)["entries"]] == ["wood"]

    promoted = wait_for(
        "the greedy entry to be promoted",
        lambda: (s := status("season", admin))["entries"][0]["tier"] == "gold" and s,
    )
    (decision,) = [d for d in promoted["decisions"] if d["kind"] == "promote"]
    assert decision["bot"] == "greedy" and "from wood to gold" in decision["reason"]
    assert "above boss wood-boss in" in decision["reason"]  # its results in wood, nothing else
    played = int(decision["reason"].split(" after ", 1)[1].split()[0])
    assert played >= 3, decision["reason"]  # --promote-after 3: never before its third match
    wood = [s for s in promoted["standings"] if s["tier"] == "wood"]
    assert [s["bot"] for s in wood] == ["wood-boss"]  # the entry left the wood ladder

    def plays_in_gold() -> bool:
        gold = {s["bot"]: s for s in status("season", admin)["standings"] if s["tier"] == "gold"}
        return set(gold) == {"greedy", "gold-boss"} and gold["greedy"].get("matches", 0) > 0

    wait_for("the promoted entry to play in gold", plays_in_gold)
    shown = " ".join(ok("competition", "status", "season", *admin).split())
    assert "tiers, lowest first: wood (boss wood-boss), gold (boss gold-boss)" in shown
    assert "promotion after 3 matches in a tier; relegation after 50 last places in a row" in shown
    assert "entries: greedy v1 in gold" in shown
    site = BackgroundWebServer(competition_server.server.db)
    try:
        with urllib.request.urlopen(f"{site.url}/api/competitions/season", timeout=30) as answer:
            page = json.load(answer)
        with urllib.request.urlopen(f"{site.url}/competitions/season", timeout=30) as answer:
            html = answer.read().decode()
    finally:
        site.stop()
    assert [(t["name"], t["boss"]) for t in page["tiers"]] == [("wood", "wood-boss"), ("gold", "gold-boss")]
    assert page["entries"][0]["tier"] == "gold" and 'id="tiers"' in html

    # The deadline: the tier ladders stop, the entry is frozen; one entry cannot fill a finals
    # match, so the competition ends there rather than sit closed waiting for someone.
    move_clock(clock_file, hours=2)
    closed = wait_for("the deadline", lambda: (s := status("season", admin))["phase"] == "final" and s)
    assert closed["entries"][0]["frozen_version"] == 1 and not closed["winner"]
    assert [d["reason"] for d in closed["decisions"] if d["kind"] == "winner"] == [
        "no winner: 1 frozen entries cannot fill a 2-seat match: no finals"
    ]
    kinds = [d["kind"] for d in closed["decisions"]]
    assert kinds.count("promote") == 1 and "enter" in kinds
    assert all(d["bot"] != "wood-boss" for d in closed["decisions"] if d["kind"] in ("promote", "enter"))
