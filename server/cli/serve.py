"""``kingmaker serve``: run the referee server until interrupted."""

from __future__ import annotations

import asyncio
import gc
import signal
from pathlib import Path

import typer

from kingmaker.ladder.errors import LadderError
from kingmaker.server.app import KingmakerServer, ListenError, ServerConfig
from kingmaker.server.cli.common import console, fail
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.executors import EXECUTORS, ExecutorError
from kingmaker.server.locations import DEFAULT_ADDRESS, admin_token_path
from kingmaker.server.process_executor import ProcessExecutor
from kingmaker.server.roster import BUSY_TIMEOUT
from kingmaker.server.web.serve import bound_port, embedded_web_server


def serve(
    address: str = typer.Option(
        DEFAULT_ADDRESS,
        "--address",
        "-a",
        envvar="KINGMAKER_SERVER",
        help="host:port to listen on, or unix:/path (the address the other commands reach).",
    ),
    database_url: str | None = typer.Option(
        None,
        "--database-url",
        help="Any SQLAlchemy URL. Default: $KINGMAKER_DATABASE_URL, else $KINGMAKER_HOME/kingmaker.db "
        "($KINGMAKER_HOME: ./.kingmaker).",
    ),
    decision_ms: int = typer.Option(2000, min=1, help="Default time for one decision, in ms."),
    bank_ms: int = typer.Option(0, min=0, help="Default time bank per seat, in ms."),
    increment_ms: int = typer.Option(0, min=0, help="Default bank increment per decision, in ms."),
    max_strikes: int = typer.Option(3, min=1, help="Faults after which a seat forfeits."),
    concurrency: int = typer.Option(2, min=1, help="Matches a league plays at the same time by default."),
    connect_timeout: float = typer.Option(
        15.0,
        min=0.1,
        max=3600,
        help="Seconds a seat waits for its bot to connect (then the bot is at fault).",
    ),
    busy_timeout: float = typer.Option(
        BUSY_TIMEOUT,
        min=0.1,
        max=86400,
        help="Seconds a match waits for remote bots busy elsewhere before the server gives the seat up.",
    ),
    admin_token: str | None = typer.Option(
        None, "--admin-token", help="Admin token (default: generated, saved)."
    ),
    tls_cert: Path | None = typer.Option(
        None, exists=True, dir_okay=False, help="PEM certificate: serve TLS."
    ),
    tls_key: Path | None = typer.Option(
        None, exists=True, dir_okay=False, help="PEM private key of --tls-cert."
    ),
    allow_unjailed: bool = typer.Option(
        False,
        "--allow-unjailed",
        help="Where the jail (bubblewrap) does not work, run managed bots anyway: only for bots you trust.",
    ),
    web: int | None = typer.Option(
        None,
        "--web",
        min=0,
        max=65535,
        help="Also serve the read-only website on this port (see docs/web.md).",
    ),
    web_host: str = typer.Option(
        "127.0.0.1", "--web-host", help="Address the website listens on with --web (loopback by default)."
    ),
    executor: str = typer.Option(
        "local",
        "--executor",
        help="Where league matches of managed bots are played: local (this process), processes "
        "(worker processes on this machine, to use its cores) or ray (the nodes of a Ray cluster; "
        "see docs/scaling.md).",
    ),
    workers: int = typer.Option(
        0, "--workers", min=0, help="With --executor processes: how many worker processes (0: one per CPU)."
    ),
    ray_address: str | None = typer.Option(
        None,
        "--ray-address",
        envvar="KINGMAKER_RAY_ADDRESS",
        help="With --executor ray: the Ray head, host:port.",
    ),
    ray_workers: int = typer.Option(
        0, "--ray-workers", min=0, help="With --executor ray: use at most this many worker nodes (0: all)."
    ),
) -> None:
    """Start the referee server (loopback by default) and serve until Ctrl-C or SIGTERM."""
    if (tls_cert is None) != (tls_key is None):
        raise typer.BadParameter("give both --tls-cert and --tls-key, or neither", param_hint="--tls-cert")
    if executor not in EXECUTORS:
        fail(f"--executor {executor!r}: choose one of {', '.join(EXECUTORS)}")
    if workers and executor != "processes":
        fail(f"--workers is for --executor processes (this server's executor is {executor})")
    if executor == "ray" and not ray_address:
        fail("--executor ray needs --ray-address, the Ray head's host:port")
    config = ServerConfig(
        tls_cert=tls_cert,
        tls_key=tls_key,
        address=address,
        admin_token=admin_token,
        database_url=database_url,
        time_control=TimeControl(decision_ms, bank_ms, increment_ms, max_strikes),
        concurrency=concurrency,
        connect_timeout=connect_timeout,
        busy_timeout=busy_timeout,
        allow_unjailed=allow_unjailed,
        executor=executor,
        ray_address=ray_address,
        ray_workers=ray_workers,
        workers=workers,
    )
    try:
        asyncio.run(_serve(config, web, web_host))
    except (OSError, LadderError) as error:
        fail(str(error))


async def _serve(config: ServerConfig, web_port: int | None = None, web_host: str = "127.0.0.1") -> None:
    server = KingmakerServer(config)
    # Before starting: a SIGTERM that comes while the server starts (its workers, its leagues)
    # still stops it in order.
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stopping.set)
    try:
        address = await server.start()
    except (ListenError, ExecutorError) as error:
        await server.stop()
        fail(str(error))
    console.print(f"kingmaker serving on [bold]{address}[/]", soft_wrap=True)
    console.print(f"database {server.db.url}; admin token in {admin_token_path()}", soft_wrap=True)
    # Loud when managed bots run unjailed or are refused: the operator must not miss it.
    style = "green" if server.confinement.startswith("jailed") else "bold red"
    console.print(f"managed bots: {server.confinement}", style=style, soft_wrap=True, markup=False)
    if config.executor == "ray":
        console.print(
            f"matches of managed bots play on the Ray cluster at {config.ray_address}", soft_wrap=True
        )
    elif isinstance(server.executor, ProcessExecutor):
        count = len(server.executor.pids())
        console.print(f"matches of managed bots are refereed in {count} worker processes", soft_wrap=True)
    site, site_task = None, None
    if web_port is not None:
        site = embedded_web_server(server.db, web_host, web_port, server.live)
        site_task = asyncio.create_task(site.serve())
        while not site.started and not site_task.done():
            await asyncio.sleep(0.02)
        if not site.started:
            await server.stop()
            fail(f"cannot serve the website on {web_host}:{web_port} (is the port in use?)")
        console.print(f"website on [bold]http://{web_host}:{bound_port(site)}[/]", soft_wrap=True)
    # What is built by now (modules, schema, protos) lives as long as the server: keep it out of
    # the garbage collector's full passes, each of which would otherwise stall every match for as
    # long as scanning ~140k objects takes (measured: 300 ms on a loaded 2-core machine, 0 after).
    gc.collect()
    gc.freeze()
    await stopping.wait()
    console.print("stopping")
    if site is not None and site_task is not None:
        site.should_exit = True
        await site_task
    await server.stop()
