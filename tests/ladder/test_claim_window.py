"""A claim asks the database for the window's free matches first (``claim_window.free_seats``), and
reads the whole window only when they are too few: it must choose exactly what choosing from the
whole window chooses, whatever is busy, absent or asked for."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from ladder_support import TEST_GAME, make_bots

from kingmaker.ladder.leagues import claim_window
from kingmaker.ladder.leagues.claim_window import CLAIM_LOOKAHEAD, free_first, waiting_seats
from kingmaker.ladder.leagues.leagues import create_league, league_row
from kingmaker.ladder.pairing.free_first import choose_free
from kingmaker.ladder.storage.db import Database


def test_the_free_matches_asked_first_are_what_the_whole_window_would_give(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    bots = make_bots(db, 10)
    league = create_league(db, "window", TEST_GAME, [bot.name for bot in bots], rounds=2, seed=4)
    ids = [bot.id for bot in bots]
    whole_reads = []

    def counted(*args: Any) -> list[tuple[int, tuple[int, ...]]]:
        whole_reads.append(args)
        return waiting_seats(*args)

    monkeypatch.setattr(claim_window, "waiting_seats", counted)
    luck = random.Random(7)
    ways: Counter[str] = Counter()
    for _ in range(80):
        limit = luck.choice([0, 1, 1, 1, 2, 3, 5])
        busy = Counter(luck.sample(ids, luck.randrange(len(ids) + 1)))
        absent = frozenset(luck.sample(ids, luck.choice([0, 0, 0, 1])))
        with db.transaction() as session:
            row = league_row(session, league.id, lock=True)
            window = waiting_seats(session, row, limit + CLAIM_LOOKAHEAD)
            expected, _ = choose_free(window, limit, busy, absent)
            del whole_reads[:]
            chosen, seated = free_first(session, row, limit, busy, absent)
        assert [match.id for match in chosen] == [match_id for match_id, _ in expected]
        assert seated == dict(expected)
        ways["whole window" if whole_reads else "free ones alone"] += 1
    assert min(ways.values()) >= 10, ways  # both ways were taken, often
