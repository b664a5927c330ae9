"""bench/decisions.py: its referee with in-loop bots plays the very games the engine plays alone
(both take legal action 0), so the two CPU figures it sets side by side are of the same work; its
serve worker's figure counts the decisions of the reports a worker really sends."""

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


def test_the_worker_row_counts_the_decisions_a_worker_reports() -> None:
    # A worker's report leaves its decisions to the packed log; counting those gave no decisions
    # at all, and the row divided by zero.
    bench = decisions.WorkerBench(at_once=1)  # its warm-up plays one match already
    try:
        assert bench.loop.run_until_complete(bench._play(1)) > 0
        assert bench.cpu_us(1) > 0
    finally:
        bench.close()
