"""Helpers the test folders share."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def bot_command(relative_path: str) -> tuple[str, ...]:
    """The command that runs a sample bot file with this interpreter."""
    return (PYTHON, str(REPO / "sample_bots" / relative_path))
