"""``kingmaker serve``: run the referee server until interrupted.

It takes its home (``locations.claim_home``) before it imports the server, which on a loaded
machine takes many seconds: a command run right after `kingmaker serve &` then finds a server
starting and waits for it, where it found no server and gave up. So the server's own modules
are imported inside ``serve``, after the checks that need none of them."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from kingmaker.ladder import bounds
from kingmaker.server.addresses import MAX_PORT
from kingmaker.server.bind_check import bind_problem
from kingmaker.server.cli.common import (
    console,
    fail,
    host_option,
    listen_option,
    tcp_listen_option,
    tcp_option,
)
from kingmaker.server.locations import DEFAULT_ADDRESS, admin_token_path, claim_home, drop_claims
from kingmaker.server.seats.deadlines import BUSY_TIMEOUT, KEEP_BOTS_MAX, KEEP_IDLE_S

if TYPE_CHECKING:
    from kingmaker.server.app import KingmakerServer, ServerConfig


def serve(
    address: str = typer.Option(
        DEFAULT_ADDRESS,
        "--address",
        "-a",
        envvar="KINGMAKER_SERVER",
        callback=listen_option,
        help="host:port to listen on (port 0: a free one), [ipv6]:port, or unix:/path (the address the "
        "other commands reach).",
    ),
    admin_address: str | None = typer.Option(
        None,
        "--admin-address",
        callback=tcp_listen_option,
        help="Also serve the Admin API on this host:port (TLS as --address), on a thread of its own: "
        "for remote organisers whose calls should not wait behind the bots'. The local commands "
        "reach that lane on a socket in the server's home anyway.",
    ),
    database_url: str | None = typer.Option(
        None,
        "--database-url",
        help="Any SQLAlchemy URL. Default: $KINGMAKER_DATABASE_URL, else $KINGMAKER_HOME/kingmaker.db "
        "($KINGMAKER_HOME: ./.kingmaker).",
    ),
    decision_ms: int = typer.Option(
        2000, min=1, max=bounds.DECISION_MS.high, help="Default time for one decision, in ms."
    ),
    bank_ms: int = typer.Option(0, min=0, max=bounds.BANK_MS.high, help="Default time bank per seat, in ms."),
    increment_ms: int = typer.Option(
        0, min=0, max=bounds.INCREMENT_MS.high, help="Default bank increment per decision, in ms."
    ),
    max_strikes: int = typer.Option(
        3, min=1, max=bounds.MAX_STRIKES.high, help="Faults after which a seat forfeits."
    ),
    concurrency: int = typer.Option(
        2,
        min=bounds.CONCURRENCY.low,
        max=bounds.CONCURRENCY.high,
        help="Matches a league plays at the same time by default.",
    ),
    connect_timeout: float = typer.Option(
        15.0,
        min=bounds.CONNECT_TIMEOUT_S.low,
        max=bounds.CONNECT_TIMEOUT_S.high,
        help="Seconds a seat waits for its bot to connect (then the bot is at fault).",
    ),
    busy_timeout: float = typer.Option(
        BUSY_TIMEOUT,
        min=bounds.BUSY_TIMEOUT_S.low,
        max=bounds.BUSY_TIMEOUT_S.high,
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
        max=MAX_PORT,
        help="Also serve the website on this port: the public pages, and the authors' console where "
        "they sign in to upload and follow their bots (see docs/web.md).",
    ),
    web_host: str = typer.Option(
        "127.0.0.1",
        "--web-host",
        callback=host_option,
        help="Address the website listens on with --web (loopback by default).",
    ),
    guests: int = typer.Option(
        0,
        "--guests",
        min=0,
        max=1000,
        help="Let visitors without a token play against the bots under a guest name (docs/play.md), "
        "at most this many at once (0: no guests).",
    ),
    rate_people: bool = typer.Option(
        False,
        "--rate-people",
        help="Rate authors' matches with people in a separate 'with people' rating per game "
        "(`kingmaker ladder GAME --with-people`); never on the ladder. Guests are never rated.",
    ),
    people_live_delay: float = typer.Option(
        0.0,
        "--people-live-delay",
        min=bounds.LIVE_DELAY_S.low,
        max=bounds.LIVE_DELAY_S.high,
        help="With --web: show a match a person plays (docs/play.md) this many seconds late to its "
        "spectators, as a league's --live-delay shows its matches.",
    ),
    executor: str | None = typer.Option(
        None,
        "--executor",
        help="Where league matches of managed bots are played: processes (worker processes on this "
        "machine, to use its cores: the default where it has more than one), local (this process: the "
        "default on one core) or ray (the nodes of a Ray cluster; see docs/scaling.md).",
        show_default=False,
    ),
    workers: int = typer.Option(
        0,
        "--workers",
        min=0,
        max=bounds.WORKERS.high,
        help="With --executor processes: how many worker processes (0: one per core it may use).",
    ),
    ray_address: str | None = typer.Option(
        None,
        "--ray-address",
        envvar="KINGMAKER_RAY_ADDRESS",
        callback=tcp_option,
        help="With --executor ray: the Ray head, host:port.",
    ),
    ray_workers: int = typer.Option(
        0,
        "--ray-workers",
        min=0,
        max=bounds.WORKERS.high,
        help="With --executor ray: use at most this many worker nodes (0: all).",
    ),
    keep_bots: float = typer.Option(
        KEEP_IDLE_S,
        "--keep-bots-s",
        min=bounds.KEEP_BOTS_S.low,
        max=bounds.KEEP_BOTS_S.high,
        help="Seconds a managed bot's idle process is kept after its last match, so that the next "
        "league finds it started (0: stopped as each match ends).",
    ),
    keep_bots_max: int = typer.Option(
        KEEP_BOTS_MAX,
        "--keep-bots-max",
        min=bounds.KEEP_BOTS_MAX.low,
        max=bounds.KEEP_BOTS_MAX.high,
        help="The most idle bot processes kept on this machine, of all bots together; to keep one "
        "more, the one idle longest is stopped (0: none kept).",
    ),
    keep_versions: int = typer.Option(
        3,
        "--keep-versions",
        min=bounds.KEEP_VERSIONS.low,
        max=bounds.KEEP_VERSIONS.high,
        help="Retention: versions of each bot that keep their archive and build beside the active one "
        "and those a build, match or league still needs (the newest); the others are pruned.",
    ),
    notify_webhook: str | None = typer.Option(
        None,
        "--notify-webhook",
        envvar="KINGMAKER_NOTIFY_WEBHOOK",
        help="POST every notice to an author (a build or validation failed, an A/B verdict, a "
        "suspension, a competition's deadline ahead) to this http(s) address as JSON, its public "
        "sentence only (docs/web.md, notices).",
        show_default=False,
    ),
    prepare_toolchains: bool = typer.Option(
        False,
        "--prepare-toolchains",
        help="Prepare every installed language's toolchain cache (the Go and Rust kits' libraries, built "
        "once and shared read-only by builds) in the background as the server starts, so that no "
        "author's first build waits for it; the start-up lines say which caches are ready.",
    ),
    log_level: str | None = typer.Option(
        None,
        "--log-level",
        help="Print the server's log from this level on, with times: debug, info or warning "
        "(without it: warnings and errors only, as plain lines).",
        show_default=False,
    ),
) -> None:
    """Start the referee server (loopback by default) and serve until Ctrl-C or SIGTERM."""
    if log_level is not None:
        if log_level.lower() not in LOG_LEVELS:
            fail(f"--log-level {log_level!r}: choose one of {', '.join(LOG_LEVELS)}")
        logging.basicConfig(
            level=LOG_LEVELS[log_level.lower()], format="%(asctime)s %(levelname)s %(name)s: %(message)s"
        )
    if (tls_cert is None) != (tls_key is None):
        raise typer.BadParameter("give both --tls-cert and --tls-key, or neither", param_hint="--tls-cert")
    if notify_webhook is not None:
        from kingmaker.server.services.notice_webhook import WebhookError, check_url

        try:
            check_url(notify_webhook)
        except WebhookError as error:
            fail(f"--notify-webhook: {error}")
    # An address the server cannot listen on is said before anything is made (home, database,
    # admin token): one line, and nothing to clean up.
    for place in (address, admin_address):
        if place is not None and (problem := bind_problem(place)) is not None:
            fail(problem)
    # The website's port is taken first: if it is in use, that is one line and nothing has
    # started (no database opened, no gRPC server listening); then the site serves on it.
    site_socket = None if web is None else _website_socket(web_host, web)
    claim_home()
    try:
        from kingmaker.ladder.errors import LadderError
        from kingmaker.server.app import HomeExposed, ServerConfig
        from kingmaker.server.building.submission_limits import SubmissionLimits
        from kingmaker.server.execution.executors import EXECUTORS, default_executor
        from kingmaker.server.home import HomeInUse
        from kingmaker.server.seats.deadlines import TimeControl

        if executor is None:  # --workers alone means worker processes, even on one core
            executor = "processes" if workers else default_executor()
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
            admin_address=admin_address,
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
            submission_limits=SubmissionLimits(keep_versions=keep_versions),
            keep_bots_s=keep_bots,
            keep_bots_max=keep_bots_max,
            guests=guests,
            rate_people=rate_people,
            notify_webhook=notify_webhook,
        )
        try:
            asyncio.run(_serve(config, site_socket, web_host, people_live_delay, prepare_toolchains))
        except (OSError, LadderError, HomeInUse, HomeExposed) as error:
            fail(str(error))
    finally:
        drop_claims()  # (a server that started has adopted it: only an unused one is dropped)
        if site_socket is not None:
            site_socket.close()


LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING}


def _say(line: str) -> None:
    console.print(line, soft_wrap=True, markup=False, highlight=False)


async def _toolchain_caches(
    server: KingmakerServer, prepare: bool, say: Callable[[str], None] = _say
) -> asyncio.Task[None] | None:
    """Say which toolchain caches are ready; with ``prepare``, prepare the others in the background
    (the task: serving goes on meanwhile)."""
    from kingmaker.server.building.toolchain_preparation import cache_states, prepare_ahead, states_line

    pipeline = server.submissions
    prepare = prepare and pipeline is not None
    states = await asyncio.to_thread(cache_states, server.builds.root, None, server.run_folder)
    say(states_line(states, preparing=prepare))
    if not prepare or pipeline is None:
        return None
    return asyncio.create_task(prepare_ahead(pipeline.builds, pipeline.sandbox, pipeline.temp_root, say))


def _website_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        fail(f"cannot serve the website on {host}:{port}: {reason}")


async def _serve(
    config: ServerConfig,
    site_socket: socket.socket | None = None,
    web_host: str = "127.0.0.1",
    people_delay_s: float = 0.0,
    prepare_toolchains: bool = False,
) -> None:
    from kingmaker.server.app import KingmakerServer, ListenError
    from kingmaker.server.execution.executors import ExecutorError
    from kingmaker.server.execution.process_executor import ProcessExecutor

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
    if server.lane_addresses:  # the Admin API on a thread of its own, beside `address`
        console.print(f"admin lane on {', '.join(server.lane_addresses)}", soft_wrap=True, markup=False)
    if config.executor == "ray":
        console.print(
            f"matches of managed bots play on the Ray cluster at {config.ray_address}", soft_wrap=True
        )
    elif isinstance(server.executor, ProcessExecutor):
        count = len(server.executor.pids())
        console.print(f"matches of managed bots are refereed in {count} worker processes", soft_wrap=True)
    preparing = await _toolchain_caches(server, prepare_toolchains)
    site, site_task = None, None
    if site_socket is not None:
        # (imported only here: the website's modules are a tenth of a second of every start)
        from kingmaker.server.web.serve import bound_port, embedded_web_server

        port = site_socket.getsockname()[1]
        site = embedded_web_server(server.db, web_host, port, server.live, address, people_delay_s)
        site_task = asyncio.create_task(site.serve(sockets=[site_socket]))
        while not site.started and not site_task.done():
            await asyncio.sleep(0.02)
        if not site.started:
            await server.stop()
            fail(f"cannot serve the website on {web_host}:{port}")
        host = f"[{web_host}]" if ":" in web_host else web_host
        console.print(f"website on [bold]http://{host}:{bound_port(site)}[/]", soft_wrap=True)
    # What is built by now (modules, schema, protos) lives as long as the server: keep it out of
    # the garbage collector's full passes, each of which would otherwise stall every match for as
    # long as scanning ~140k objects takes (measured: 300 ms on a loaded 2-core machine, 0 after).
    gc.collect()
    gc.freeze()
    await stopping.wait()
    console.print("stopping")
    if preparing is not None:  # (its build is stopped with it)
        preparing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await preparing
    if site is not None and site_task is not None:
        site.should_exit = True
        await site_task
    await server.stop()
