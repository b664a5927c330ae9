"""Keeping a long-running server's resident memory flat: what glibc's allocator holds back.

Over 2,000 Kingdoms matches of instant bots refereed in the server (``bench/suite.py memory``),
its RSS grew by 14.4 MB after warm-up, and by 8.6 MB in a run beside it with glibc's arenas capped at
two (``MALLOC_ARENA_MAX=2``): freed memory that glibc kept, spread over one arena per thread that
allocates (the event loop, gRPC's threads, the worker threads that write results). Fewer arenas,
and handing free pages back now and then, keep it flat (docs/scaling.md has the figures). Both
are glibc's own calls (``mallopt``, ``malloc_trim``); elsewhere (musl, macOS) nothing is done.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import functools
import logging

log = logging.getLogger("kingmaker.server")

M_ARENA_MAX = -8
"""mallopt's parameter number for the most arenas (glibc's malloc.h)."""
ARENAS = 2
"""Arenas glibc may use: the threads that allocate most (the loop, gRPC) get one each or share."""
TRIM_EVERY_S = 30.0
"""How often free memory is handed back to the system."""


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    library = ctypes.CDLL(name)
    return library if hasattr(library, "mallopt") and hasattr(library, "malloc_trim") else None


def limit_arenas() -> bool:
    """Cap glibc's arenas at ``ARENAS`` (for threads started from now on); False where it cannot."""
    glibc = _glibc()
    return glibc is not None and glibc.mallopt(M_ARENA_MAX, ARENAS) == 1


def trim() -> bool:
    """Hand the free memory at the top and in the middle of every arena back to the system; True
    if any was."""
    glibc = _glibc()
    return glibc is not None and glibc.malloc_trim(0) == 1


async def trim_now_and_then(every_s: float = TRIM_EVERY_S) -> None:
    """``trim`` every ``every_s`` seconds until cancelled (it takes a few ms: off the loop)."""
    if _glibc() is None:
        return
    while True:
        await asyncio.sleep(every_s)
        await asyncio.to_thread(trim)
