"""Think-time percentiles (nearest rank) and the samples a match log keeps per seat."""

from __future__ import annotations

from kingmaker.ladder.matches.think_times import percentile, rounded, seat_samples, summarise


def test_nearest_rank_percentiles() -> None:
    values = [float(n) for n in range(1, 101)]  # 1..100
    assert percentile(values, 0.50) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([7.0], 0.99) == 7.0
    assert percentile([], 0.5) == 0.0


def test_a_summary_counts_decisions_and_time() -> None:
    think = summarise([3.0, 1.0, 2.0, 10.0])
    assert (think.decisions, think.total_ms, think.p50_ms, think.p99_ms) == (4, 16.0, 2.0, 10.0)
    assert think.mean_ms == 4.0
    assert summarise([]).mean_ms == 0.0


def test_samples_per_seat_and_logs_without_them() -> None:
    timings = {"duration_s": 1.0, "think_ms": rounded([[1.234, 2.0], [3.456]])}
    assert seat_samples(timings, 0) == [1.23, 2.0]
    assert seat_samples(timings, 1) == [3.46]
    assert seat_samples(timings, 2) == []
    assert seat_samples({"duration_s": 1.0}, 0) == []  # stored before think times were kept
