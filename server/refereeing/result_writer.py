"""Finished matches' results written in group commits.

With several matches in play, results arrive a few milliseconds apart, and each one alone pays a
transaction: SQLite's write lock (``BEGIN IMMEDIATE``, waiting behind the claim) and a commit
that syncs the disk. The writer keeps one transaction in flight: the results that arrive while
it is written wait, and go together in the next (``ladder.result_batch``), so under load one
commit carries several results and with one match at a time nothing waits longer than before.

Each caller still waits until its own result is stored (``until_stored`` retries the batch while
the database fails), so a result is as safe as when it was written alone: a crash before the
commit leaves the match *running*, and the league's resume replays it.
"""

from __future__ import annotations

import asyncio

from kingmaker.ladder.records import FinishReport, MatchOutcome
from kingmaker.ladder.result_batch import finish_matches
from kingmaker.ladder.storage.db import Database
from kingmaker.server.refereeing.results import until_stored

BATCH_LIMIT = 32
"""At most this many results in one transaction (a longer one holds SQLite's write lock longer)."""


class ResultWriter:
    def __init__(self, db: Database, limit: int = BATCH_LIMIT) -> None:
        self.db = db
        self.limit = limit
        self._waiting: list[tuple[MatchOutcome, asyncio.Future[FinishReport]]] = []
        self._writing: asyncio.Task[None] | None = None
        self.batches = 0
        """Transactions written (with ``results``: how many results a commit carried)."""
        self.results = 0

    async def finish(self, outcome: MatchOutcome) -> FinishReport:
        """Store ``outcome`` (in the next group commit) and return its report once committed."""
        stored: asyncio.Future[FinishReport] = asyncio.get_running_loop().create_future()
        self._waiting.append((outcome, stored))
        if self._writing is None or self._writing.done():
            self._writing = asyncio.create_task(self._write_waiting(), name="result writer")
        # Shielded: a caller cancelled (the server stopping) does not cancel the others' batch.
        return await asyncio.shield(stored)

    async def _write_waiting(self) -> None:
        while self._waiting:
            batch, self._waiting = self._waiting[: self.limit], self._waiting[self.limit :]
            try:
                reports = await until_stored(finish_matches, self.db, [outcome for outcome, _ in batch])
            except Exception as error:  # refused as a whole, retrying cannot help: tell every caller
                reports = [error] * len(batch)
            self.batches += 1
            self.results += len(batch)
            for (_, stored), report in zip(batch, reports, strict=True):
                if stored.done():
                    continue
                if isinstance(report, Exception):
                    stored.set_exception(report)
                else:
                    stored.set_result(report)
