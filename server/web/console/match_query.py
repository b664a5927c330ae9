"""The filters of a bot's matches in the console (``?opponent=NAME&version=N&result=win``): read
from the page's query, passed to the server's ``ListMatches``, which checks them (a bad one is its
one-line refusal, shown as the page's error), and written back into the page's links."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from starlette.datastructures import QueryParams

from kingmaker.server.web.console.client import ConsoleError

RESULTS = ("win", "draw", "loss")
"""As ``ListMatches`` takes them (``ladder.matches.match_filter``)."""


@dataclass(frozen=True)
class MatchQuery:
    opponent: str = ""
    version: int = 0
    result: str = ""

    @classmethod
    def of(cls, query: QueryParams) -> MatchQuery:
        version = query.get("version", "").strip()
        if version and (not version.isdigit() or not 0 < int(version) < 2**31):
            raise ConsoleError(400, f"a version is a number from 1, not {version[:40]!r}")
        return cls(query.get("opponent", "").strip(), int(version or 0), query.get("result", "").strip())

    def as_dict(self) -> dict[str, Any]:
        """The filters as given, and as a query string to carry into the next page's link."""
        given = {key: value for key, value in self._pairs() if value}
        return {**dict(self._pairs()), "query": urlencode(given), "results": RESULTS}

    def _pairs(self) -> list[tuple[str, Any]]:
        return [("opponent", self.opponent), ("version", self.version or ""), ("result", self.result)]
