"""bench/first_builds.py: a kit's row is met only when every build of it built within the CPU
limit, and its figures are the median and range of its builds (issue 47)."""

from __future__ import annotations

import sys
from types import ModuleType

import pytest
from bench_modules import BENCH, load_bench


@pytest.fixture
def first_builds() -> ModuleType:
    sys.path.insert(0, str(BENCH))  # the bench's own imports (table, ladder)
    return load_bench("first_builds")


def test_a_row_holds_the_median_and_range_of_the_builds_cpu_and_wall(first_builds: ModuleType) -> None:
    timed = first_builds.Timed
    builds = [timed(40.0, 300.0, True), timed(10.0, 100.0, True), timed(25.0, 120.0, True)]

    row = first_builds.build_row("go", "first build", builds, 600.0, [29.0, 31.0, 30.5])

    assert (row.value.median, row.value.low, row.value.high) == (25.0, 10.0, 40.0)
    assert "wall 120 (100-300) s" in row.what and row.what.startswith("go: first build")
    assert (row.load.median, row.load.low, row.load.high) == (30.5, 29.0, 31.0)
    assert row.met is True and row.unit == "CPU-s"


def test_a_row_is_not_met_when_one_build_passed_the_limit_or_failed(first_builds: ModuleType) -> None:
    timed = first_builds.Timed
    over = [timed(10.0, 20.0, True), timed(600.5, 900.0, True)]
    failed = [timed(10.0, 20.0, True), timed(30.0, 40.0, False, "the build failed with exit code 2")]

    assert first_builds.build_row("rust", "first build", over, 600.0, [30.0]).met is False
    assert first_builds.build_row("rust", "first build", failed, 600.0, [30.0]).met is False
    assert first_builds.build_row("rust", "first build", over[:1], 600.0, [30.0]).met is True
