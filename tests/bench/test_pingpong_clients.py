"""bench/referee.py's bare transport: its clients exit after their matches even when a stream's
handler still needs the event loop once the matches are over. On a loaded machine a handler may
still be awaiting its last request's send (the completion comes through the loop) when the last
reply arrives; the loop used to stop there, the streams stayed open, and the bench failed waiting
10 s for clients that waited for their stream's end."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from bench_modules import BENCH, load_bench


def test_the_clients_exit_when_the_streams_close_after_the_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))  # the bench's own imports (rates, table)
    referee = load_bench("referee")

    class LateToClose(referee.PingPongServer):  # type: ignore[misc,name-defined]
        """Its handlers take one more turn of the loop, after the matches' end, to close a stream."""

        async def _play(self, requests: Any, context: Any) -> AsyncIterator[bytes]:
            async for message in super()._play(requests, context):
                yield message
            await asyncio.sleep(0.05)  # as a late send completion holds a handler

    server = LateToClose()
    try:
        for _ in range(2):  # the second run finds nothing left over from the first
            assert server.run(2, 6) > 0
    finally:
        server.close()
