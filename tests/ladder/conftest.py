"""Fixtures for the ladder tests: a database per test (SQLite, PostgreSQL) and the test game."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest
from ladder_support import DICE_DUEL, TEST_GAME

from kingmaker.games import registry
from kingmaker.ladder.storage.db import Database, open_database


@pytest.fixture(autouse=True)
def dice_duel(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("kingmaker_test_dice_duel")
    module.GAME = DICE_DUEL  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry._MODULES, TEST_GAME, module.__name__)


@pytest.fixture
def db(database_url: str) -> Iterator[Database]:
    """The ladder database, once in SQLite and once in PostgreSQL (see database_fixtures.py)."""
    database = open_database(database_url)
    yield database
    database.close()
