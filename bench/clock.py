"""Is the clock fair under load? Late strikes per 1,000 decisions with a 50 ms limit and bots
that answer at once, at 8, 16 and 32 matches at once, and at 64 with admission control.

Every bot here is innocent (the instant bot: legal action 0 at once), so every late strike, every
seat lost on time and every suspension is the server's unfairness. The figure beside each is the
count of decisions it was measured over."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from table import Row, Spread

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches.history import list_matches
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.seats.deadlines import TimeControl

INSTANT = [sys.executable, "-m", "kingmaker.sample_bots.instant_bot"]


def under_load(concurrency: int, rounds: int, game: str = "kingdoms") -> dict[str, float]:
    """Play ``concurrency`` leagues of two instant bots at once; count what went wrong."""
    folder = tempfile.mkdtemp(prefix="km-clock-")
    os.environ["KINGMAKER_HOME"] = folder
    config = ServerConfig(
        address="127.0.0.1:0",
        database_url=f"sqlite:///{Path(folder) / 'clock.db'}",
        admin_token="bench",
        time_control=TimeControl(decision_ms=50),
        jail=False,
    )
    server = BackgroundServer(config)
    try:
        db = server.server.db
        names = [f"instant-{i}" for i in range(2 * concurrency)]
        for name in names:
            bots.register_bot(db, name, [game], command=INSTANT)
        for number in range(concurrency):
            leagues.create_league(db, f"l{number}", game, names[2 * number : 2 * number + 2], rounds=rounds)

        async def run(name: str) -> None:
            async for _ in server.server.leagues.watch(name, 1):
                pass

        async def run_all() -> int:
            held = 0
            watching = asyncio.gather(*(run(f"l{number}") for number in range(concurrency)))
            while not watching.done():
                admission = server.server.admission
                held = max(held, admission.held_back if admission is not None else 0)
                await asyncio.sleep(0.05)
            await watching
            return held

        started = time.perf_counter()
        most_held = server.run(run_all(), timeout=1800)
        elapsed = time.perf_counter() - started
        decisions = strikes = timeouts = matches = 0
        for number in range(concurrency):
            for match in list_matches(db, league=f"l{number}", limit=1000):
                matches += 1
                decisions += len(match_log(db, match.match_id).actions) if match.status == "finished" else 0
                strikes += sum(seat.strikes or 0 for seat in match.seats)
                timeouts += sum(
                    1 for seat in match.seats if seat.end_reason and seat.end_reason.value == "timeout"
                )
        suspended = sum(1 for bot in bots.list_bots(db) if bot.suspended_reason)
        return {
            "decisions": decisions,
            "strikes_per_1000": 1000 * strikes / max(1, decisions),
            "timeouts": timeouts,
            "suspended": suspended,
            "held": most_held,
            "matches_per_min": 60 * matches / elapsed,
        }
    finally:
        server.stop()


def rows(quick: bool) -> list[Row]:
    found = []
    loads = [(8, 2), (16, 1), (32, 1), (64, 1)] if quick else [(8, 4), (16, 3), (32, 2), (64, 2)]
    for concurrency, rounds in loads:
        runs = [under_load(concurrency, rounds) for _ in range(1 if quick else 2)]
        decisions = Spread.of([r["decisions"] for r in runs])
        label = f"{concurrency} matches at once, 50 ms limit, instant bots"
        if concurrency == 64:
            label += ", admission control"
        strikes = Spread.of([r["strikes_per_1000"] for r in runs])
        found += [
            Row("clock", label, "late strikes / 1,000 decisions", strikes, "decisions measured", decisions,
                goal="< 0.1", met=strikes.high < 0.1),
            Row("clock", label, "seats lost on time", Spread.of([r["timeouts"] for r in runs]), goal="0",
                met=all(r["timeouts"] == 0 for r in runs)),
            Row("clock", label, "innocent bots suspended", Spread.of([r["suspended"] for r in runs]),
                goal="0", met=all(r["suspended"] == 0 for r in runs)),
            Row("clock", label, "matches/min", Spread.of([r["matches_per_min"] for r in runs])),
        ]  # fmt: skip
        if concurrency == 64:
            found.append(
                Row("clock", label, "most matches held back at once", Spread.of([r["held"] for r in runs]))
            )
    return found


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "the clock under load")
