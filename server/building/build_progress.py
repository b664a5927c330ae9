"""What a build prints while it runs, for its watchers: the pipeline registers each version's
build process while it builds; ``WatchVersion`` reads what is new since its last message, so
`kingmaker submit` and the website's console show the build log as it is written, and where the
build stands against its time limit (its ``BuildClock``).

A build's last lines are written just before it ends: they are kept for ``KEEP_SECONDS`` after,
so that a watcher that read last a moment before still gets them."""

from __future__ import annotations

import time
from typing import Protocol

from kingmaker.server.building.build_clock import BuildClock

CHUNK_BYTES = 16 * 1024
"""At most this much of what is new goes in one message (its end: a burst keeps its last lines)."""
KEEP_SECONDS = 120.0
KEEP_BYTES = 64 * 1024


class StderrSource(Protocol):
    def stderr_since(self, offset: int, limit: int) -> tuple[str, int]: ...


class LiveBuildLogs:
    """The build processes running now, and the ends of those that ended a moment ago, by (bot,
    version number)."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, int], StderrSource] = {}
        self._clocks: dict[tuple[str, int], BuildClock] = {}
        self._ended: dict[tuple[str, int], tuple[bytes, int, float]] = {}
        """(its last bytes, the offset they start at, when it ended)"""

    def building(
        self, bot: str, number: int, process: StderrSource | None, clock: BuildClock | None = None
    ) -> None:
        """The version's build process (and its clock) from now on; None once it has ended
        (called before its output is discarded)."""
        key = (bot, number)
        now = time.monotonic()
        self._ended = {known: kept for known, kept in self._ended.items() if now - kept[2] < KEEP_SECONDS}
        if process is not None:
            self._running[key] = process
            if clock is not None:
                self._clocks[key] = clock
            return
        self._clocks.pop(key, None)
        ended = self._running.pop(key, None)
        if ended is not None:
            text, total = ended.stderr_since(0, KEEP_BYTES)
            data = text.encode()
            self._ended[key] = (data, max(0, total - len(data)), now)

    def clock(self, bot: str, number: int) -> BuildClock | None:
        """Where the version's running build stands against its limits; None when none runs."""
        return self._clocks.get((bot, number))

    def since(self, bot: str, number: int, offset: int) -> tuple[str, int]:
        """What the build printed from byte ``offset`` on (its end, when more than a chunk), and
        the offset to ask from next; ("", offset) when nothing more is known."""
        key = (bot, number)
        process = self._running.get(key)
        if process is not None:
            text, written = process.stderr_since(offset, CHUNK_BYTES)
            return text, offset + written
        if key not in self._ended:
            return "", offset
        data, base, _ = self._ended[key]
        end = base + len(data)
        if offset >= end:
            return "", offset
        return data[max(offset, base) - base :][-CHUNK_BYTES:].decode(errors="replace"), end
