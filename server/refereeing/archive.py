"""Where the matches a server plays without storing them (`match run --seat`) are kept, so that
`match show` and `replay` find them until the server stops: the newest ``KEPT`` of them, so a
server that runs such matches for months keeps a bounded number."""

from __future__ import annotations

from kingmaker.server.refereeing.referee import MatchReport

KEPT = 500
"""Unstored matches a server keeps: each holds its whole log until it is dropped."""


class MemoryArchive:
    """The newest ``kept`` unstored matches of this server process, by id (lost when it stops)."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._matches: dict[str, MatchReport] = {}

    def add(self, report: MatchReport) -> None:
        self._matches[report.match_id] = report
        while len(self._matches) > self.kept:  # dicts keep insertion order: the oldest goes
            del self._matches[next(iter(self._matches))]

    def get(self, match_id: str) -> MatchReport | None:
        return self._matches.get(match_id)

    def __len__(self) -> int:
        return len(self._matches)

    def newest(self, game: str | None, limit: int) -> list[MatchReport]:
        """At most ``limit`` of this process's matches (of ``game``, if given), newest first."""
        found = [r for r in reversed(self._matches.values()) if game is None or r.game == game]
        return found[:limit]
