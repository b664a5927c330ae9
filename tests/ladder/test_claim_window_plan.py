"""How SQLite reads a claim's window: in plan order from the index (``ix_match_league_status_plan``)
rather than by sorting all of the league's scheduled matches, which made the window's query take
655 µs in a 64-bot round robin (4,032 matches) against 277 in a 16-bot one; and a window match's
seats looked up by the match, not once per busy bot."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from ladder_support import TEST_GAME, make_bots
from sqlalchemy.dialects import sqlite

from kingmaker.ladder.leagues import claim_window
from kingmaker.ladder.leagues.leagues import create_league
from kingmaker.ladder.storage.db import open_database


def _plan(path: Path, statement: Any, **params: Any) -> list[tuple[int, int, str]]:
    """SQLite's query plan of ``statement`` with these values: (id, parent id, what) per step."""
    expanded = statement.compile(dialect=sqlite.dialect()).construct_expanded_state(params)
    values = [expanded.parameters[name] for name in expanded.positiontup or ()]
    with sqlite3.connect(path) as connection:
        steps = connection.execute(f"EXPLAIN QUERY PLAN {expanded.statement}", values)
        return [(row[0], row[1], row[3]) for row in steps]


def _under(plan: list[tuple[int, int, str]], parent: int) -> list[str]:
    """The steps under step ``parent``, at any depth."""
    found, below = [], {parent}
    for step, up, what in plan:
        if up in below:
            below.add(step)
            found.append(what)
    return found


def test_the_window_is_read_in_plan_order_from_the_index(tmp_path: Path) -> None:
    path = tmp_path / "ladder.db"
    db = open_database(f"sqlite:///{path}")
    bots = make_bots(db, 12)
    league = create_league(db, "big", TEST_GAME, [bot.name for bot in bots], rounds=2)
    db.close()
    window = {"league": league.id, "window": claim_window.CLAIM_LOOKAHEAD + 1}
    busy = [bot.id for bot in bots[:8]]
    free_plan = _plan(path, claim_window._FREE_SEATS, **window, limit=2, taken=busy)
    for plan in (free_plan, _plan(path, claim_window._WAITING_SEATS, **window)):
        reads = [what for _, _, what in plan if what.startswith("SEARCH match USING")]
        assert any("ix_match_league_status_plan (league_id=? AND status=?)" in what for what in reads), plan
        (window_step,) = [step for step, _, what in plan if what.startswith("CO-ROUTINE")] or [
            step for step, _, what in plan if what.startswith("LIST SUBQUERY")
        ]
        assert not any("TEMP B-TREE" in what for what in _under(plan, window_step)), plan
    taken = [what for _, _, what in free_plan if what.startswith("SEARCH taken")]
    assert taken and all("(match_id=?)" in what for what in taken), free_plan
