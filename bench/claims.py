"""The scheduler's claim as a continuous ladder grows and ages (issue 27: it must not cost more with
more bots or more matches played).

A ladder league of Kingdoms, 2 seats, in an SQLite file, driven through the league store as the
scheduler drives it, without a referee: claim one match (``leagues.claim_matches``, limit 1, as a
league with one free slot does), finish it at once (ranks by a coin), claim the next. Measured: the
CPU time of the claims, per match, averaged over batches of 45 (five rounds of planning: one claim
in nine plans the next nine matches). At 100 and 1,000 bots beside 10 bots; and with 1,000 bots at
each quarter of a long run beside a new ladder of 1,000 bots (a few hundred matches old); each pair
measured alternating, so that the machine's load falls on both alike.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from table import Row, alternate

from kingmaker.ladder.bots.bots import register_bot
from kingmaker.ladder.leagues.leagues import claim_matches, create_league
from kingmaker.ladder.matches.matches import finish_match
from kingmaker.ladder.records import MatchOutcome, SeatOutcome
from kingmaker.ladder.storage.db import Database, open_database

GAME = "kingdoms"
BATCH = 45


class Ladder:
    """A ladder league of ``bots`` bots in a database of its own."""

    def __init__(self, bots: int) -> None:
        folder = Path(tempfile.mkdtemp(prefix="km-claims-"))
        self.db: Database = open_database(f"sqlite:///{folder / 'claims.db'}")
        names = [register_bot(self.db, f"bot-{i:04d}", [GAME])[0].name for i in range(bots)]
        self.league_id = create_league(self.db, "ladder", GAME, names, format="ladder", seed=bots).id
        self.coin = random.Random(bots)
        self.played = 0

    def claims_ms(self, count: int = BATCH) -> float:
        """Play ``count`` matches; the mean CPU time of their claims, in ms."""
        spent = 0.0
        for _ in range(count):
            tick = time.thread_time()
            (ticket,) = claim_matches(self.db, self.league_id, 1)
            spent += time.thread_time() - tick
            first = self.coin.randrange(2)
            seats = tuple(
                SeatOutcome(seat, bot, 0, 1 if seat == first else 2)
                for seat, bot in enumerate(ticket.bot_ids)
            )
            finish_match(self.db, MatchOutcome(ticket.match_id, seats, "bench"))
            self.played += 1
        return 1000 * spent / count


def rows(quick: bool) -> list[Row]:
    runs = 3 if quick else 5
    small = Ladder(10)
    small.claims_ms(9)  # the first claim also stamps the league's start
    found = []
    for bots in (100, 1000):
        large = Ladder(bots)
        large.claims_ms(9)
        ours, theirs = alternate(large.claims_ms, small.claims_ms, runs)
        found.append(
            Row("claims", f"a ladder's claim per match, {bots:,} bots, 2 seats", "ms CPU", ours,
                "10 bots", theirs, goal="≤ 1.2x of 10 bots", met=ours.median <= 1.2 * theirs.median)
        )  # fmt: skip
    matches = 2_000 if quick else 10_000
    aged, young = Ladder(1000), Ladder(1000)
    young.claims_ms(9)
    for quarter in range(1, 5):
        while aged.played < quarter * matches // 4:
            aged.claims_ms()
        ours, theirs = alternate(aged.claims_ms, young.claims_ms, runs)
        what = f"claim per match, 1,000 bots, after {aged.played - runs * BATCH:,} matches"
        found.append(
            Row("claims", what, "ms CPU", ours, f"a new ladder of 1,000 (≤ {young.played:,} matches)", theirs,
                goal="≤ 1.2x of the new ladder", met=ours.median <= 1.2 * theirs.median)
        )  # fmt: skip
    return found


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "the ladder's claim")
