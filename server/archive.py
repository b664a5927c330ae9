"""Where finished matches are kept until the ladder's database takes over (see ladder/)."""

from __future__ import annotations

from kingmaker.server.referee import MatchReport


class MemoryArchive:
    """Matches of this server process, by id (lost when it stops)."""

    def __init__(self) -> None:
        self._matches: dict[str, MatchReport] = {}

    def add(self, report: MatchReport) -> None:
        self._matches[report.match_id] = report

    def get(self, match_id: str) -> MatchReport | None:
        return self._matches.get(match_id)

    def newest(self, game: str | None, limit: int) -> list[MatchReport]:
        """At most ``limit`` of this process's matches (of ``game``, if given), newest first."""
        found = [r for r in reversed(self._matches.values()) if game is None or r.game == game]
        return found[:limit]
