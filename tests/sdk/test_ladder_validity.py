"""A small run of bench/ladder_validity.py: the ladder puts a known order in place and keeps it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from kingmaker.server.cli.duel import bot_factory

BENCH = Path(__file__).resolve().parents[2] / "bench" / "ladder_validity.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ladder_validity", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_small_league_settles_on_the_known_order() -> None:
    bench = _bench()
    # The full benchmark adds search bots; CI keeps to the two bots whose order is certain.
    order = ["random", "heuristic"]
    bots = {name: bot_factory(name, "kings_road") for name in order}
    report = bench.run_league("kings_road", bots, order, 16, 2)
    assert report.settled_at is not None
    assert report.settled_at <= 16
    assert report.ratings["heuristic"] > report.ratings["random"]
