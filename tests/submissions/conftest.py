"""Fixtures of the submission tests: the folders of the bots an author submits."""

from __future__ import annotations

from pathlib import Path

import pytest
from submission_bots import c_bot, python_bot


@pytest.fixture
def author_bots(tmp_path: Path) -> tuple[Path, Path]:
    """The folders of the two bots an author submits: (Python with a helper module, C by make)."""
    return python_bot(tmp_path / "helped"), c_bot(tmp_path / "cbot")
