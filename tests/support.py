"""Helpers the test folders share: a real server on loopback in a background thread, bot commands."""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from kingmaker.server.app import KingmakerServer, ServerConfig

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
T = TypeVar("T")


def bot_command(relative_path: str) -> tuple[str, ...]:
    """The command that runs a sample bot file with this interpreter."""
    return (PYTHON, str(REPO / "sample_bots" / relative_path))


class ServerThread:
    """A KingmakerServer on its own event loop in a background thread."""

    def __init__(self, config: ServerConfig) -> None:
        self.loop = asyncio.new_event_loop()
        self.server = KingmakerServer(config)
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self.address = self.run(self.server.start())

    @property
    def admin_token(self) -> str:
        return self.server.admin_token

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 120) -> T:
        """Run a coroutine on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        try:
            self.run(self.server.stop(grace=1.0), timeout=30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=10)
