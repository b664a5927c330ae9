"""Fixtures of the kits' tests."""

from __future__ import annotations

import pytest
from kit_submissions import Submission


@pytest.fixture(scope="session")
def kit_submissions() -> dict[str, Submission]:
    """Each kit's submission in this session (one worker's), made by the first test that needs it."""
    return {}
