"""The scheduler's property test, short: several leagues at once over shared remote and managed
bots (random capacities), faulty bots suspended along the way, an innocent bot disabled and
enabled again, the server killed with SIGKILL mid-run and started again. The long version with
more leagues, kills and seeds is `bench/chaos.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))

from chaos import run_chaos  # the bench holds the scenario; this test runs it small


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7, 11])
def test_many_leagues_through_kills_and_disables_keep_every_result_true(
    seed: int, tmp_path: Path, ladder_url: str
) -> None:
    report = run_chaos(seed=seed, leagues=3, kills=1, workdir=tmp_path, database_url=ladder_url)
    assert report.kills == 1 and report.disables >= 1, "the trouble was thrown in"
    assert report.matches.get("finished", 0) >= 5, report
    assert report.problems == []
    assert report.innocent_faults == []
