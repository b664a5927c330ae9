"""A server to run beside other code: on its own event loop in a background thread (for
`kingmaker demo` and the tests), or as a `kingmaker serve` child process that a test or bench
can kill with SIGKILL and start again."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kingmaker.server.app import KingmakerServer, ServerConfig

T = TypeVar("T")

START_TIMEOUT_S = 60.0
"""How long a `serve` child may take to answer (it starts a worker process per core first)."""


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


class ServerProcess:
    """`kingmaker serve` in a child process on a Unix socket, ready when it answers a health check
    (its socket exists a while before: the server binds it, then starts its worker processes)."""

    def __init__(
        self,
        home: Path,
        socket: Path,
        database: Path | str,
        admin_token: str,
        extra: Sequence[str] = (),
        start_timeout_s: float = START_TIMEOUT_S,
    ) -> None:
        """``database``: an SQLite file, or any database URL (a string); ``start_timeout_s``: how
        long it may take to answer (more on a loaded machine)."""
        self.address = f"unix:{socket}"
        url = database if isinstance(database, str) else f"sqlite:///{database}"
        command = [
            sys.executable, "-m", "kingmaker.server.cli", "serve", "--address", self.address,
            "--database-url", url, "--admin-token", admin_token, *extra,
        ]  # fmt: skip
        environment = {**os.environ, "KINGMAKER_HOME": str(home)}
        socket.unlink(missing_ok=True)  # a killed server leaves its socket file behind
        self.process = subprocess.Popen(
            command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + start_timeout_s
        while not self._serving():
            if self.process.poll() is not None:
                output = self.process.stdout.read().decode() if self.process.stdout else ""
                raise RuntimeError(f"the server exited with {self.process.returncode}: {output}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"the server did not start within {start_timeout_s:.0f} s")
            time.sleep(0.05)

    def _serving(self) -> bool:
        if not Path(self.address.removeprefix("unix:")).exists():
            return False
        with grpc.insecure_channel(self.address) as channel:
            check = health_pb2_grpc.HealthStub(channel).Check
            try:
                answer = check(health_pb2.HealthCheckRequest(), timeout=1)
            except grpc.RpcError:
                return False
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)

    def kill(self) -> None:
        """SIGKILL, as a crash would: nothing is cleaned up."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
