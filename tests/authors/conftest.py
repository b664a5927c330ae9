"""Fixtures of the author tests: commands run as an author would, away from the server's home."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty config folder for `kingmaker login`; no admin token in the environment."""
    folder = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    monkeypatch.delenv("KINGMAKER_ADMIN_TOKEN", raising=False)
    return folder


@pytest.fixture
def away_from_home(server: object, config: Path) -> Iterator[None]:
    """Commands run elsewhere than where `serve` runs: the home's admin token file is out of
    reach (a command finds it there and would act as the admin)."""
    token_file = Path(os.environ["KINGMAKER_HOME"]) / "admin-token"
    away = token_file.with_name("admin-token.away")
    token_file.rename(away)
    try:
        yield
    finally:
        away.rename(token_file)
