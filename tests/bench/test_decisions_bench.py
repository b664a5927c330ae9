"""bench/decisions.py: its referee with in-loop bots plays the very games the engine plays alone
(both take legal action 0), so the two CPU figures it sets side by side are of the same work."""

from __future__ import annotations

import asyncio

from bench_modules import load_bench

decisions = load_bench("decisions")


def test_the_in_loop_referee_plays_the_engines_games_to_the_end() -> None:
    bench = decisions.InLoopBench()
    refereed = asyncio.run(bench._referee_matches(3))
    alone = asyncio.run(bench._engine_matches(3))
    assert refereed == alone > 0
    assert bench.referee_cpu_us(1) > 0
