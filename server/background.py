"""A server on its own event loop in a background thread: for `kingmaker demo` and the tests."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from kingmaker.server.app import KingmakerServer, ServerConfig

T = TypeVar("T")


class BackgroundServer:
    """Starts at construction; ``stop()`` always stops the server and its thread."""

    def __init__(self, config: ServerConfig) -> None:
        self.loop = asyncio.new_event_loop()
        self.server = KingmakerServer(config)
        self._thread = threading.Thread(target=self.loop.run_forever, name="kingmaker-server", daemon=True)
        self._thread.start()
        try:
            self.address = self.run(self.server.start())
        except BaseException:
            self._halt()
            raise

    @property
    def admin_token(self) -> str:
        return self.server.admin_token

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = 600) -> T:
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        try:
            self.run(self.server.stop(grace=1.0), timeout=30)
        finally:
            self._halt()

    def _halt(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
