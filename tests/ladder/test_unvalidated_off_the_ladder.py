"""A bot that no version of has passed validation yet is not on its games' ladder (issue 47): it
was listed as "inactive" from its first submission. It appears once a version plays, and a bot
suspended for its faults stays listed (inactive), as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from kingmaker.ladder.bots import bots, versions
from kingmaker.ladder.matches.bot_stats import bot_record
from kingmaker.ladder.ratings.standings import ladder_size, standings
from kingmaker.ladder.storage.db import Database, open_database


@pytest.fixture
def db(tmp_path: Path) -> Database:
    return open_database(f"sqlite:///{tmp_path / 'ladder.db'}")


def listed(db: Database) -> list[tuple[str, bool]]:
    return [(row.bot, row.active) for row in standings(db, "kingdoms")]


def test_a_bot_waiting_for_its_first_version_is_not_listed(db: Database) -> None:
    bots.register_bot(db, "remote", ["kingdoms"])
    first = versions.start_submission(db, "newbot", ["kingdoms"], "a" * 64)
    assert listed(db) == [("remote", True)] and ladder_size(db, "kingdoms") == 1
    [waiting] = bot_record(db, "newbot").games
    assert (waiting.position, waiting.ladder_size) == (0, 1), "its page says: not on the ladder"
    versions.mark_failed(db, "newbot", first.number, "build_failed", "no compiler")
    assert listed(db) == [("remote", True)], "a failed first version puts nothing on the ladder"
    second = versions.start_submission(db, "newbot", ["kingdoms"], "b" * 64)
    versions.mark_built(db, "newbot", second.number, "h" * 64, ["true"], "grpc", {}, "built")
    versions.activate(db, "newbot", second.number, [])
    assert sorted(listed(db)) == [("newbot", True), ("remote", True)] and ladder_size(db, "kingdoms") == 2
    [playing] = bot_record(db, "newbot").games
    assert (playing.position, playing.ladder_size) == (1, 2), "level with remote: by name"
