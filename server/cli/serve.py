"""``kingmaker serve``: run the referee server until interrupted."""

from __future__ import annotations

import asyncio
import signal

import typer

from kingmaker.server.app import DEFAULT_ADDRESS, KingmakerServer, ServerConfig, admin_token_path
from kingmaker.server.cli.common import console, fail
from kingmaker.server.deadlines import TimeControl


def serve(
    address: str = typer.Option(
        DEFAULT_ADDRESS, "--address", "-a", help="host:port to listen on, or unix:/path."
    ),
    decision_ms: int = typer.Option(2000, min=1, help="Default time for one decision, in ms."),
    bank_ms: int = typer.Option(0, min=0, help="Default time bank per seat, in ms."),
    increment_ms: int = typer.Option(0, min=0, help="Default bank increment per decision, in ms."),
    max_strikes: int = typer.Option(3, min=1, help="Faults after which a seat forfeits."),
    admin_token: str = typer.Option(
        None, "--admin-token", help="Admin token (default: generated and saved)."
    ),
) -> None:
    """Start the referee server (loopback by default) and serve until Ctrl-C or SIGTERM."""
    control = TimeControl(decision_ms, bank_ms, increment_ms, max_strikes)
    config = ServerConfig(address=address, admin_token=admin_token, time_control=control)
    try:
        asyncio.run(_serve(config))
    except OSError as error:
        fail(str(error))


async def _serve(config: ServerConfig) -> None:
    server = KingmakerServer(config)
    try:
        address = await server.start()
    except RuntimeError as error:
        fail(f"cannot listen on {config.address}: {error}")
    console.print(f"kingmaker serving on [bold]{address}[/] (admin token in {admin_token_path()})")
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    console.print("stopping")
    await server.stop()
