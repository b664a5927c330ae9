"""Wiring: the gRPC server with the Arena, Admin, health and reflection services."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from kingmaker.server.archive import MemoryArchive
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.launcher import Limits
from kingmaker.server.matches import LaunchedMatchRunner
from kingmaker.server.services.admin import AdminService, new_admin_token
from kingmaker.server.services.arena import ArenaService
from kingmaker.server.sessions import SessionPool
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc

DEFAULT_ADDRESS = "127.0.0.1:50051"
MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def home_directory() -> Path:
    """Where the server keeps its database and admin token: $KINGMAKER_HOME or ./.kingmaker."""
    return Path(os.environ.get("KINGMAKER_HOME", ".kingmaker"))


def admin_token_path() -> Path:
    return home_directory() / "admin-token"


def load_or_create_admin_token(explicit: str | None = None) -> str:
    """The admin token: given, from $KINGMAKER_ADMIN_TOKEN, or kept in a private file."""
    token = explicit or os.environ.get("KINGMAKER_ADMIN_TOKEN")
    if token:
        return token
    path = admin_token_path()
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    token = new_admin_token()
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(token + "\n")
    return token


@dataclass
class ServerConfig:
    address: str = DEFAULT_ADDRESS
    """host:port (port 0 picks a free one) or unix:/path/to/socket."""
    admin_token: str | None = None
    time_control: TimeControl = field(default_factory=TimeControl)
    connect_timeout: float = 15.0
    limits: Limits = field(default_factory=Limits)


class KingmakerServer:
    """One referee server. ``await start()``, then ``await stop()``; ``address`` is where it listens."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.admin_token = load_or_create_admin_token(config.admin_token)
        self.pool = SessionPool()
        self.archive = MemoryArchive()
        self.address = config.address
        self._server: grpc.aio.Server | None = None
        self._health = health.aio.HealthServicer()

    async def start(self) -> str:
        options = [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ]
        server = grpc.aio.server(options=options)
        port = server.add_insecure_port(self.config.address)
        if not self.config.address.startswith("unix:"):
            host = self.config.address.rsplit(":", 1)[0]
            self.address = f"{host}:{port}"
        runner = LaunchedMatchRunner(self.pool, self.address, self.config.connect_timeout, self.config.limits)
        arena_pb2_grpc.add_ArenaServicer_to_server(ArenaService(self.pool), server)
        admin = AdminService(self.admin_token, runner, self.archive, self.config.time_control)
        admin_pb2_grpc.add_AdminServicer_to_server(admin, server)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        names = (
            arena_pb2.DESCRIPTOR.services_by_name["Arena"].full_name,
            admin_pb2.DESCRIPTOR.services_by_name["Admin"].full_name,
            health.SERVICE_NAME,
            reflection.SERVICE_NAME,
        )
        reflection.enable_server_reflection(names, server)
        await server.start()
        for name in ("", *names[:2]):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self._server = server
        return self.address

    async def wait(self) -> None:
        if self._server is not None:
            await self._server.wait_for_termination()

    async def stop(self, grace: float = 2.0) -> None:
        """Stop taking calls, close every bot stream, and let running calls end within ``grace``."""
        if self._server is None:
            return
        await self._health.enter_graceful_shutdown()
        for session in list(self.pool.sessions):
            self.pool.remove(session)
        await self._server.stop(grace)
        self._server = None
