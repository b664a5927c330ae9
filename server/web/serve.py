"""Serving the website with uvicorn: in the foreground (``kingmaker web``), as a task beside the
referee (``kingmaker serve --web PORT``), or on a thread (tests, benchmarks, screenshots)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

import uvicorn

from kingmaker.ladder.storage.db import Database
from kingmaker.server.live import LiveHub
from kingmaker.server.web.app import create_app

DEFAULT_HOST = "127.0.0.1"
"""Loopback unless the operator says otherwise: the console's cookies are Secure only behind TLS."""
DEFAULT_PORT = 8080
SHUTDOWN_S = 2
"""How long a stopping site lets its open streams (live boards) run before closing them."""


def web_server(
    db: Database,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    live: LiveHub | None = None,
    admin_address: str | None = None,
    people_delay_s: float = 0.0,
) -> uvicorn.Server:
    """A uvicorn server for the site over ``db`` (not started); ``live``: the referee's live hub,
    when the site runs beside it; ``admin_address``: the server the authors' console calls;
    ``people_delay_s``: how late spectators see a match with a person (``create_app``)."""
    return uvicorn.Server(_config(db, host, port, live, admin_address, people_delay_s))


def _config(
    db: Database,
    host: str,
    port: int,
    live: LiveHub | None,
    admin_address: str | None = None,
    people_delay_s: float = 0.0,
) -> uvicorn.Config:
    return uvicorn.Config(
        create_app(db, live, admin_address, people_delay_s),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=SHUTDOWN_S,
    )


class EmbeddedWebServer(uvicorn.Server):
    """A uvicorn server that leaves the signals to its host (``serve --web``): the referee's own
    handlers stop both."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def embedded_web_server(
    db: Database,
    host: str,
    port: int,
    live: LiveHub | None = None,
    admin_address: str | None = None,
    people_delay_s: float = 0.0,
) -> EmbeddedWebServer:
    return EmbeddedWebServer(_config(db, host, port, live, admin_address, people_delay_s))


def bound_port(server: uvicorn.Server) -> int:
    """The port a started server listens on (what port 0 became)."""
    for listener in server.servers:
        for sock in listener.sockets:
            return int(sock.getsockname()[1])
    raise RuntimeError("the web server is not listening")


class BackgroundWebServer:
    """The site on a thread of its own, started at once; ``stop()`` ends it."""

    def __init__(
        self,
        db: Database,
        host: str = DEFAULT_HOST,
        port: int = 0,
        live: LiveHub | None = None,
        admin_address: str | None = None,
        people_delay_s: float = 0.0,
    ) -> None:
        self.server = web_server(db, host, port, live, admin_address, people_delay_s)
        self.thread = threading.Thread(target=self.server.run, name="kingmaker-web", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the web server did not start on {host}:{port}")
            time.sleep(0.02)
        self.url = f"http://{host}:{bound_port(self.server)}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
