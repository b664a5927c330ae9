"""Fixtures of the submission tests: the folders of the bots an author submits."""

from __future__ import annotations

from pathlib import Path

import pytest
from submission_bots import c_bot, python_bot

from kingmaker.sdk.sprt import Sprt
from kingmaker.server.new_versions import ab_duels


@pytest.fixture
def author_bots(tmp_path: Path) -> tuple[Path, Path]:
    """The folders of the two bots an author submits: (Python with a helper module, C by make)."""
    return python_bot(tmp_path / "helped"), c_bot(tmp_path / "cbot")


@pytest.fixture
def far_apart_ab_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The A/B gate of the in-process server decides between Elo 0 and -200, not 0 and -50, for
    tests whose versions are far apart (greedy against random): a verdict each way in about 14
    seeds rather than the 49 the gate's own bounds need at the least. Those bounds and their error
    rates are proven in tests/server/test_ab_gate.py; these tests prove the way through the server."""
    monkeypatch.setattr(ab_duels, "AB_TEST", Sprt(elo0=-200.0, elo1=0.0, alpha=0.03, beta=0.03))
