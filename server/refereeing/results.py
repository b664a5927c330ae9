"""Storing a result until it is stored: a finished match's result is never dropped.

The database can be busy (SQLite's one writer held past its busy timeout), restarting, or out of
reach for a moment. Writing a match's result (or voiding it, or claiming the next matches) goes
through ``until_stored``, which retries such failures with a growing pause, logging each, for as
long as it takes; only the server stopping ends it, and then the match is still *running* in the
database and the league's resume replays it. Errors that retrying cannot fix (a result the
ladder refuses) are raised at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError

log = logging.getLogger("kingmaker.server")

P = ParamSpec("P")
T = TypeVar("T")

FIRST_PAUSE_S = 0.2
LONGEST_PAUSE_S = 10.0


async def until_stored(write: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run the blocking ``write`` in a worker thread until the database takes it."""
    pause = FIRST_PAUSE_S
    attempt = 1
    while True:
        try:
            return await asyncio.to_thread(write, *args, **kwargs)
        except (OperationalError, DBAPIError) as error:
            if not isinstance(error, OperationalError) and not error.connection_invalidated:
                raise
            first_line = str(error.orig or error).splitlines()[0]
            log.warning(
                "%s failed (attempt %d: %s); trying again in %.1f s",
                getattr(write, "__name__", "a write"),
                attempt,
                first_line,
                pause,
            )
            await asyncio.sleep(pause)
            pause = min(LONGEST_PAUSE_S, pause * 2)
            attempt += 1
