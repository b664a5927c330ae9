"""The PostgreSQL fixture itself: where no server can start, a developer's run skips its tests,
but a CI run fails them (CI must never pass with the PostgreSQL half of the suite skipped)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parents[1]


@pytest.mark.parametrize(("ci", "outcome"), [("", "1 skipped"), ("true", "1 error")])
def test_no_postgresql_skips_on_a_desk_and_fails_in_ci(tmp_path: Path, ci: str, outcome: str) -> None:
    (tmp_path / "conftest.py").write_text("from database_fixtures import postgres  # noqa: F401\n")
    (tmp_path / "test_needs_postgres.py").write_text("def test_it(postgres):\n    pass\n")
    environment = {
        **{k: v for k, v in os.environ.items() if k not in ("CI", "KINGMAKER_TEST_POSTGRES_URL")},
        "KINGMAKER_TEST_POSTGRES_BIN": str(tmp_path / "nothing-here"),
        "PYTHONPATH": str(TESTS),
        **({"CI": ci} if ci else {}),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
    )
    assert outcome in done.stdout, done.stdout
    assert (done.returncode == 0) == (not ci)
    if ci:
        assert "CI needs PostgreSQL" in done.stdout
