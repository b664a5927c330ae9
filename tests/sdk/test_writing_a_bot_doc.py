"""The examples docs/writing-a-bot.md walks through run as the doc says."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from typer.testing import CliRunner

from kingmaker.sdk import play_local
from kingmaker.sdk.search import Budget
from kingmaker.server.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_random_bot_plays_locally() -> None:
    bot = _load("my_random_bot").MyRandomBot
    match = play_local("kingdoms", [bot(1), bot(2)], seed=1)
    assert sorted(match.result.ranks)[0] == 1


def test_the_search_bot_plays_locally_on_a_small_budget() -> None:
    module = _load("my_search_bot")
    bot = module.MySearchBot()
    bot.budget = Budget(iterations=3)
    match = play_local("kings_road", [bot, _load("my_random_bot").MyRandomBot(3)], seed=1)
    assert match.result.ranks


def test_duel_takes_the_examples_by_module_path() -> None:
    sys.path.insert(0, str(EXAMPLES))
    try:
        result = CliRunner().invoke(
            # 60 matches: at Elo 0 vs 50 no fewer than 23 seeds (46 matches) can accept H1.
            app,
            ["duel", "heuristic", "my_random_bot:MyRandomBot", "-g", "kings_road", "--max-matches", "60"],
        )
    finally:
        sys.path.remove(str(EXAMPLES))
    assert result.exit_code == 0, result.output
    assert "H1 accepted" in result.output
