"""The competitions' clock: UTC now, unless the operator who starts the server sets it ahead.

``KINGMAKER_TEST_CLOCK_FILE`` names a file holding a number of seconds the competitions' clock
runs ahead of the real one (read at every look, so a test moves time by rewriting it, and a
restarted server keeps it). It is for tests and rehearsals only: it moves deadlines, never match
clocks, and only whoever starts the server (the operator, who holds the admin token anyway) can
set it; the server says so loudly at start (docs/competitions.md).
"""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

CLOCK_FILE_ENV = "KINGMAKER_TEST_CLOCK_FILE"
log = logging.getLogger("kingmaker.server")


def clock_file() -> Path | None:
    named = os.environ.get(CLOCK_FILE_ENV)
    return Path(named) if named else None


def offset_s() -> float:
    """Seconds the clock runs ahead (0 without the file, or while it is missing or unreadable)."""
    path = clock_file()
    if path is None:
        return 0.0
    try:
        return float(path.read_text().strip() or 0)
    except (OSError, ValueError):
        return 0.0


def competition_now() -> datetime:
    return datetime.now(UTC) + timedelta(seconds=offset_s())


def set_offset(path: Path, seconds: float) -> None:
    """Move the clock (tests): written whole, then renamed, so a reader never sees half a number."""
    partial = path.with_suffix(".partial")
    partial.write_text(f"{seconds}\n")
    partial.replace(path)


def warn_if_set() -> None:
    path = clock_file()
    if path is not None:
        log.warning(
            "competition clock set by %s=%s (now %+.0f s): for tests only, never in production",
            CLOCK_FILE_ENV, path, offset_s(),
        )  # fmt: skip
