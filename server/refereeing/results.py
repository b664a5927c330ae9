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
import contextvars
import functools
import logging
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError

log = logging.getLogger("kingmaker.server")

P = ParamSpec("P")
T = TypeVar("T")

FIRST_PAUSE_S = 0.2
LONGEST_PAUSE_S = 10.0

_writers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ThreadPoolExecutor] = (
    weakref.WeakKeyDictionary()
)


def _writer() -> ThreadPoolExecutor:
    """The running loop's one thread for database writes. In asyncio's default executor a claim
    and a result batch ran in up to four threads at once, each wanting the GIL while the others
    and the loop ran, and each paid for it: the served referee's main process spent 13 ms of CPU
    a match against 9.75-12 in one thread (docs/scaling.md). SQLite takes one writer at a time
    anyway. One per event loop (a test process runs many servers, each on a loop of its own):
    the thread goes when its loop does."""
    loop = asyncio.get_running_loop()
    writer = _writers.get(loop)
    if writer is None:
        writer = _writers[loop] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="database-writes")
    return writer


async def until_stored(write: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run the blocking ``write`` in the loop's database thread until the database takes it."""
    pause = FIRST_PAUSE_S
    attempt = 1
    while True:
        try:
            call = functools.partial(contextvars.copy_context().run, write, *args, **kwargs)
            return await asyncio.get_running_loop().run_in_executor(_writer(), call)
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
