"""The referee's main process's own ladder work per match, without the rest of the server (issue 50).

Between two matches the main process claims the next (``claims.claim_with_runnables``) and
stores a finished one's result (``result_batch.finish_matches``). This drives both as the
scheduler does: a round robin of 16 bots (Kingdoms, 2 seats, 2 rounds: 240 matches) in an SQLite
file, 8 matches in play; the oldest finishes (one result per batch,
with a log packed as a worker packs it and ~70 think times a seat), then one match is claimed with
the bots in play busy. Measured: the CPU time of the claims and of the results (``thread_time``),
per match, after a warm-up league.

``--bots N`` plays a round robin of N bots instead of 16 (64: 4,032 matches a league, which
shows what a claim's cost does as a league's plan grows).

``--compare PYTHON`` runs this file alternately under this tree's interpreter and another tree's
(``PYTHON``: that tree's ``.venv/bin/python``), ``--runs`` times each, and prints both's medians
(min-max) and the machine's load: a change measured beside what it changes, in one run. Either
side may be given its packages on ``PYTHONPATH`` (a copy in the installed layout, ``kingmaker/...``):
this side's own, the other's with ``--other-path DIR``.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("KINGMAKER_HOME", tempfile.mkdtemp(prefix="km-main-path-home-"))

from kingmaker.ladder.bots.bots import Runnable, register_bot
from kingmaker.ladder.claims import claim_with_runnables
from kingmaker.ladder.leagues.leagues import create_league
from kingmaker.ladder.records import MatchOutcome, MatchTicket, PackedLog, SeatOutcome
from kingmaker.ladder.result_batch import finish_matches
from kingmaker.ladder.storage.db import open_database

GAME = "kingdoms"
BOTS = 16
IN_PLAY = 8
ROUNDS = 2


def _outcome(ticket: MatchTicket, runnables: dict[int, Runnable], coin: random.Random) -> MatchOutcome:
    first = coin.randrange(2)
    seats = tuple(
        SeatOutcome(seat, bot, 10 if seat == first else 3, 1 if seat == first else 2,
                    version=runnables[bot].version)
        for seat, bot in enumerate(ticket.bot_ids)
    )  # fmt: skip
    think = [[round(coin.uniform(0.05, 2.0), 2) for _ in range(71)] for _ in ticket.bot_ids]
    packed = PackedLog(coin.randbytes(700), coin.randbytes(1200), coin.randbytes(500))
    timings = {"duration_s": round(coin.uniform(0.3, 0.6), 3), "think_ms": think}
    return MatchOutcome(ticket.match_id, seats, "1", timings=timings, packed=packed)


def league(url: str, name: str, seed: int, bots: int = BOTS) -> tuple[float, float, int]:
    """One league of ``bots`` played through the ladder's calls: CPU ms of its claims and its
    results, and its matches."""
    db = open_database(url)
    names = [f"bot-{i:02d}" for i in range(bots)]
    league_id = create_league(db, name, GAME, names, rounds=ROUNDS, seed=seed).id
    coin = random.Random(seed)
    in_play: list[MatchTicket] = []
    runnables: dict[int, Runnable] = {}
    claims = results = 0.0
    played = 0
    while True:
        busy = {bot for ticket in in_play for bot in ticket.bot_ids}
        tick = time.thread_time()
        tickets, found = claim_with_runnables(db, league_id, IN_PLAY - len(in_play), busy)
        claims += time.thread_time() - tick
        assert isinstance(found, dict), found
        runnables |= found
        in_play += tickets
        if not in_play:
            break
        ticket = in_play.pop(0)
        outcome = _outcome(ticket, runnables, coin)
        tick = time.thread_time()
        (report,) = finish_matches(db, [outcome])
        results += time.thread_time() - tick
        assert not isinstance(report, Exception), report
        played += 1
    db.engine.dispose()
    return 1000 * claims, 1000 * results, played


def once(bots: int = BOTS) -> dict[str, float]:
    folder = Path(tempfile.mkdtemp(prefix="km-main-path-"))
    url = f"sqlite:///{folder / 'ladder.db'}"
    db = open_database(url)
    for i in range(bots):
        register_bot(db, f"bot-{i:02d}", [GAME])
    db.engine.dispose()
    league(url, "warm-up", 1, bots)
    claims, results, played = league(url, "measured", 2, bots)
    return {"claim": claims / played, "result": results / played, "matches": played}


def compare(other: str, runs: int, other_path: str | None = None, bots: int = BOTS) -> None:
    here = sys.executable
    found: dict[str, list[dict[str, float]]] = {"other": [], "this": []}
    loads = []
    for _ in range(runs):
        for key, python in (("other", other), ("this", here)):
            loads.append(os.getloadavg()[0])
            env = dict(os.environ)
            if key == "other":  # its own tree's packages (or those of ``--other-path``)
                env.pop("PYTHONPATH", None)
                env |= {"PYTHONPATH": other_path} if other_path else {}
            command = [python, __file__, "--once", "--bots", str(bots)]
            out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
            found[key].append(json.loads(out.splitlines()[-1]))
            print(key, found[key][-1], file=sys.stderr)

    def spread(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"

    print(f"load {spread(loads)}; {runs} runs each, alternating; CPU ms per match")
    print(f"{'':8} {'other (' + other + ')':>40} {'this':>24}")
    for part in ("claim", "result", "both"):
        other_, this = ([r["claim"] + r["result"] if part == "both" else r[part] for r in found[key]]
                        for key in ("other", "this"))  # fmt: skip
        print(f"{part:8} {spread(other_):>40} {spread(this):>24}")


if __name__ == "__main__":
    args = sys.argv[1:]
    bots = int(args[args.index("--bots") + 1]) if "--bots" in args else BOTS
    if "--compare" in args:
        runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 4
        other_path = args[args.index("--other-path") + 1] if "--other-path" in args else None
        compare(args[args.index("--compare") + 1], runs, other_path, bots)
    else:
        print(json.dumps(once(bots)))
