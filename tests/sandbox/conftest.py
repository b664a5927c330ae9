"""Fixtures of the sandbox tests: the two ways of sandboxing a bot, and a fresh bubblewrap probe."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from sandbox_helpers import needs_jail

from kingmaker.server.jail.sandbox import bubblewrap


@pytest.fixture(params=["plain", pytest.param("jail", marks=needs_jail)])
def isolate(request: pytest.FixtureRequest) -> bool:
    """Each limit is tested without the jail (limits only) and, where bubblewrap works, inside it."""
    return bool(request.param == "jail")


@pytest.fixture
def fresh_bubblewrap_probe() -> Iterator[Callable[[], None]]:
    """Lets a test re-probe bubblewrap under its own conditions; the real answer comes back after."""
    yield bubblewrap.cache_clear
    bubblewrap.cache_clear()
