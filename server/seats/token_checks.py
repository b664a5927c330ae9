"""Hellos' tokens, checked in batches on a thread of their own.

A thousand bots that connect at once said a thousand hellos, and each was checked twice (once to
admit it, once after, in case its token was rotated meanwhile): thousands of database reads, each
queued in the thread pool every Admin call also waits in, so the Admin API stopped answering for
seconds (issue 35). Here every token asked about while a read is under way waits for the next
read, which checks all of them in one query, on a thread no other work queues in.

A check is never answered from the past: the read that answers it starts after it was asked, so
a token rotated (or a bot disabled) before a check is seen by it, as with one read per check.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Generic, TypeVar

Found = TypeVar("Found")

MAX_BATCH = 500
"""Tokens one read checks at most (the query's IN list stays well under databases' bounds)."""


class TokenChecks(Generic[Found]):
    """``await check(token)``: what ``lookup`` finds for the token, or None. ``lookup`` takes a
    batch of distinct tokens and returns what it finds, by token (those it omits have nothing)."""

    def __init__(
        self, lookup: Callable[[Sequence[str]], dict[str, Found]], max_batch: int = MAX_BATCH
    ) -> None:
        self._lookup = lookup
        self._max_batch = max_batch
        self._waiting: dict[str, list[asyncio.Future[Found | None]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="token-checks")
        self.reads = 0
        """Reads made so far (each answers a batch)."""

    async def check(self, token: str) -> Found | None:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Found | None] = loop.create_future()
        self._waiting.setdefault(token, []).append(future)
        if self._reader is None:
            self._reader = loop.create_task(self._read(), name="token checks")
        return await future

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        batch: dict[str, list[asyncio.Future[Found | None]]] = {}
        try:
            while self._waiting:
                tokens = list(self._waiting)[: self._max_batch]
                batch = {token: self._waiting.pop(token) for token in tokens}
                self.reads += 1
                try:
                    found = await loop.run_in_executor(self._thread, self._lookup, tokens)
                except Exception as error:  # every check of the batch fails, as its own read would
                    for future in _open(batch):
                        future.set_exception(error)
                else:
                    for token, futures in batch.items():
                        for future in _open({token: futures}):
                            future.set_result(found.get(token))
                batch = {}
        finally:
            self._reader = None
            waiting, self._waiting = self._waiting, {}
            for future in _open(batch) + _open(waiting):  # cancelled (the server stops)
                future.cancel()

    def close(self) -> None:
        """Stop the thread (a read under way finishes; nothing new is read)."""
        self._thread.shutdown(wait=False, cancel_futures=True)


def _open(batch: dict[str, list[asyncio.Future[Found | None]]]) -> list[asyncio.Future[Found | None]]:
    """The checks of a batch still waiting (a caller may have gone: a hello's timeout)."""
    return [future for futures in batch.values() for future in futures if not future.done()]
