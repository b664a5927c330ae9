"""What pinning versions costs a match: reading the seats' bots before each match
(``rated.entrants_of``) in a league that pins versions (a competition's finals), in one that pins
none (every other league: one more primary-key read, of the league row), beside the read every
match made before pins existed (``bots.runnables``), in turn, as CPU per call."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from table import Row, alternate

from kingmaker.ladder.bots.bots import edit_bot, register_bot, runnables
from kingmaker.ladder.leagues.leagues import create_league
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.scheduling.rated import entrants_of

CALLS = 400


def per_call_ms(work: object) -> float:
    start = time.process_time()
    for _ in range(CALLS):
        work()  # type: ignore[operator]
    return 1000 * (time.process_time() - start) / CALLS


def rows(quick: bool) -> list[Row]:
    runs = 3 if quick else 7
    with tempfile.TemporaryDirectory() as folder:
        db = open_database(f"sqlite:///{Path(folder) / 'ladder.db'}")
        ids = tuple(
            register_bot(db, f"bot{i}", ["kingdoms"], command=["true", str(i)])[0].id for i in range(2)
        )
        for i in range(2):
            edit_bot(db, f"bot{i}", command=["true", f"v2-{i}"])  # version 2 active; the pins hold v1
        plain = create_league(db, "plain", "kingdoms", ["bot0", "bot1"]).id
        pinned = create_league(db, "pinned", "kingdoms", ["bot0", "bot1"], versions={"bot0": 1, "bot1": 1}).id
        assert [e.version for e in entrants_of(db, ids, pinned)] == [1, 1]

        def before() -> float:
            return per_call_ms(lambda: runnables(db, ids))

        found = []
        for what, league in (("a league that pins none", plain), ("a finals league that pins both", pinned)):
            ours, theirs = alternate(
                lambda league=league: per_call_ms(lambda: entrants_of(db, ids, league)), before, runs
            )
            found.append(
                Row("pinned seats", f"seats read before a 2-seat match, {what}", "ms CPU", ours,
                    "the read before pins (bots.runnables)", theirs)
            )  # fmt: skip
        db.close()
    return found


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "reading a match's seats, with pinned versions")
