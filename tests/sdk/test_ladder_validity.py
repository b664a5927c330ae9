"""A small run of bench/ladder_validity.py: the ladder puts a known order in place and keeps it."""

from __future__ import annotations

from bench_modules import load_bench

from kingmaker.server.cli.duel import bot_factory


def test_a_small_league_settles_on_the_known_order() -> None:
    bench = load_bench("ladder_validity")
    # The full benchmark adds search bots; CI keeps to the two bots whose order is certain.
    order = ["random", "heuristic"]
    bots = {name: bot_factory(name, "kings_road") for name in order}
    report = bench.run_league("kings_road", bots, order, 16, 2)
    assert report.settled_at is not None
    assert report.settled_at <= 16
    assert report.ratings["heuristic"] > report.ratings["random"]
