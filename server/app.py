"""Wiring: the gRPC server with the Arena, Admin, health and reflection services."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import resource
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from kingmaker.ladder.bots import bots
from kingmaker.ladder.bots.versions import fail_interrupted
from kingmaker.ladder.competitions.competition_clock import warn_if_set
from kingmaker.ladder.matches.matches import void_interrupted_one_offs
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.server import malloc
from kingmaker.server.addresses import AddressError, parse_address
from kingmaker.server.bind_check import bind_problem
from kingmaker.server.building.build_store import BlobStore, BuildStore
from kingmaker.server.building.submission_limits import SubmissionLimits
from kingmaker.server.execution.executors import ExecutorError, LocalExecutor, MatchExecutor, usable_cores
from kingmaker.server.execution.match_host import HostSettings
from kingmaker.server.home import HomeLock, secret_paths
from kingmaker.server.jail.launcher import Limits, confinement
from kingmaker.server.jail.run_folder import make_run_folder
from kingmaker.server.jail.sandbox import SandboxPolicy, exposed_secret, shown_paths
from kingmaker.server.live import LiveHub
from kingmaker.server.locations import (
    DEFAULT_ADDRESS,
    admin_socket_path,
    admin_token_path,
    default_database_url,
    home_directory,
)
from kingmaker.server.loop_lag import LoopLag
from kingmaker.server.new_versions.submissions import SubmissionPipeline
from kingmaker.server.refereeing.archive import MemoryArchive
from kingmaker.server.scheduling.competition_ticker import keep_competitions
from kingmaker.server.scheduling.scheduler import LeagueRunner
from kingmaker.server.seats.admission import Admission
from kingmaker.server.seats.arena import HELLO_TIMEOUT_SECONDS, ArenaService
from kingmaker.server.seats.barred import barred
from kingmaker.server.seats.deadlines import BUSY_TIMEOUT, KEEP_BOTS_MAX, KEEP_IDLE_S, TimeControl
from kingmaker.server.seats.presence import AWAY_GRACE_S
from kingmaker.server.seats.roster import Roster
from kingmaker.server.seats.sessions import Identity, SessionPool
from kingmaker.server.seats.token_checks import TokenChecks
from kingmaker.server.services.admin import READ_ON_THE_LANE, AdminService, new_admin_token
from kingmaker.server.services.host_paths import remember_home
from kingmaker.server.services.lane import AdminLane, Listening
from kingmaker.server.services.notice_webhook import NoticeWebhook
from kingmaker.server.services.submissions import SubmissionService
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, arena_pb2, arena_pb2_grpc

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
UNIX_PATH_MAX = 107
"""The longest path a Unix socket may have (108 bytes with its final NUL, on Linux)."""
log = logging.getLogger(__name__)


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


def incoming_connection_limit() -> int:
    """Connections the server accepts at once: what its file-descriptor limit allows, less a
    reserve for the database, bot processes and logs (a full server refuses new connections
    rather than failing to open a file)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 10_000
    return max(16, min(10_000, soft - max(64, soft // 4)))


class ListenError(RuntimeError):
    """The server cannot take its address (in use, or not an address of this machine)."""


class HomeExposed(RuntimeError):
    """The server's home would be visible to jailed bots wherever it is covered."""


@dataclass
class ServerConfig:
    address: str = DEFAULT_ADDRESS
    """host:port (port 0 picks a free one) or unix:/path/to/socket."""
    admin_token: str | None = None
    database_url: str | None = None
    """Any SQLAlchemy URL; None means ``default_database_url()``."""
    time_control: TimeControl = field(default_factory=TimeControl)
    connect_timeout: float = 15.0
    """How long a seat waits for its bot to connect (launched bots: to say hello)."""
    busy_timeout: float = BUSY_TIMEOUT
    """How long a match waits for remote bots busy in other matches before the server gives up
    on the seat (a server failure: the match is void, the bot is not blamed)."""
    limits: Limits = field(default_factory=Limits)
    concurrency: int = 2
    """Matches a league plays at the same time, unless its run asks for another number."""
    admission_control: bool = True
    """Hold new matches back while the server's loop lags (see ``admission``)."""
    away_grace: float = AWAY_GRACE_S
    """Seconds a remote bot of a running ladder may go without a connection before it is away
    (see ``presence``)."""
    resume_leagues: bool = True
    """Start again, at start-up, every league a previous run left unfinished, and keep the
    competitions to their clock (``competition_ticker``)."""
    jail: bool = True
    """Run launched bots in the bubblewrap jail (no network). Where it does not work they are
    refused, unless ``allow_unjailed``; False runs them unjailed, as trusted code."""
    allow_unjailed: bool = False
    """Where the jail does not work, run launched bots anyway (``serve --allow-unjailed``)."""
    hello_timeout: float = HELLO_TIMEOUT_SECONDS
    """Seconds a new stream has to say hello."""
    handshake_timeout: float = 10.0
    """Seconds a new connection has to finish the HTTP/2 handshake."""
    idle_connection_timeout: float = 120.0
    """Seconds a connection may stay open with no call before the server closes it."""
    tls_cert: Path | None = None
    tls_key: Path | None = None
    """With both, the server speaks TLS on ``address`` (PEM files)."""
    admin_address: str | None = None
    """Where the admin lane listens too, besides its Unix socket in the home (host:port, TLS as
    ``address``): for remote organisers whose Admin calls should not wait behind the bots."""
    executor: str = "local"
    """Where league matches are played: "local" (this process), "processes" (local worker
    processes, see ``process_executor``) or "ray" (see ``ray_executor``). `serve` passes
    ``executors.default_executor()`` unless told: worker processes where there is more than one
    core. Embedded servers (`demo`, tests) referee in their own process unless they ask."""
    workers: int = 0
    """With ``executor="processes"``: how many worker processes (0: one per core it may use)."""
    ray_address: str | None = None
    """With ``executor="ray"``: the Ray cluster's head, host:port."""
    ray_workers: int = 0
    """With ``executor="ray"``: use at most this many worker nodes (0: every one)."""
    submission_limits: SubmissionLimits = field(default_factory=SubmissionLimits)
    """Bounds on submitted archives and their builds (``submission_limits``)."""
    keep_bots_s: float = KEEP_IDLE_S
    """How long a managed bot's idle process is kept after its last match, for the next league
    or round to find it warm (``Roster.keep_idle_s``; 0: stopped when its match ends)."""
    guests: int = 0
    """How many guests may be seated at once (docs/play.md); 0: none (only authors play)."""
    rate_people: bool = False
    """Rate an author's matches with people in the separate "with people" ratings (docs/play.md,
    ``serve --rate-people``); never on the ladder. Guests are never rated."""
    keep_bots_max: int = KEEP_BOTS_MAX
    """The most idle managed bot processes kept on this machine, the server's and its worker
    processes' together (each worker keeps its share; a Ray node keeps as many of its own); to keep
    one more, the one idle longest is stopped (``Roster.kept_in_all``)."""
    notify_webhook: str | None = None
    """An http(s) address every new notice to an author is POSTed to as JSON (``notice_webhook``)."""


class KingmakerServer:
    """One referee server. ``await start()``, then ``await stop()``; ``address`` is where it listens."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        url = config.database_url or default_database_url()
        # Only the server's user may enter it: it holds the database and the admin token, and
        # bots that run outside the jail run as users of their own.
        home = home_directory()
        self.hidden_paths = tuple(secret_paths(home, url))
        """What no bot may see (the jail covers it wherever a folder it shows holds it)."""
        if config.jail and (exposed := exposed_secret(self.hidden_paths, shown_paths(SandboxPolicy()))):
            secret, shown = exposed
            raise HomeExposed(
                f"the server's home or database {secret} holds {shown}, which every jailed bot is "
                "shown, so it cannot be hidden from them: keep the home elsewhere (KINGMAKER_HOME, "
                "--database-url)"
            )
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        remember_home(home)  # said <server home> in what authors and the public read
        if home.stat().st_uid == os.geteuid() and home.stat().st_mode & 0o077:
            home.chmod(0o700)  # made by an older version, open to everyone
        # One server per home, taken before the database is opened (a second server would void
        # the first one's matches); HomeInUse says who holds it.
        self.home_lock = HomeLock(home, url)
        self.home_lock.acquire()
        try:
            self.db: Database = open_database(url)
            try:  # and one server per PostgreSQL database, whatever homes name it
                self.home_lock.hold_database(self.db.engine)
            except BaseException:
                self.db.close()
                raise
            self.admin_token = load_or_create_admin_token(config.admin_token)
        except BaseException:
            self.home_lock.release()
            raise
        self.loop_lag = LoopLag()
        self.token_checks = TokenChecks(functools.partial(bots.token_holders, self.db))
        """Hellos' tokens, checked in batches on a thread of their own (``token_checks``)."""
        self.pool = SessionPool(self._authenticate, self.loop_lag)
        self.archive = MemoryArchive()
        self.live = LiveHub()
        """The running matches spectators watch (``serve --web``'s live boards)."""
        self.address = config.address
        self._server: grpc.aio.Server | None = None
        self._health = health.aio.HealthServicer()
        self.roster: Roster | None = None
        self.run_folder: Path | None = None
        """This server's temporary files (see ``run_folder``), removed when it stops."""
        self.leagues: LeagueRunner | None = None
        self.admission: Admission | None = None
        self.confinement = ""
        """How launched bots run here (``launcher.confinement``): jailed, UNJAILED or refused."""
        self.executor: MatchExecutor | None = None
        self.blobs = BlobStore(home / "blobs")
        """Submitted archives, by hash: beside the database, never in a jail."""
        self.builds = BuildStore(home / "builds")
        """Built versions' folders, by hash: shown read-only to the bot at /bot."""
        self.submissions: SubmissionPipeline | None = None
        self._jail_door: grpc.aio.Server | None = None
        """The server on the Unix socket launched bots reach: the Arena only."""
        self.lane: AdminLane | None = None
        """The Admin API (and Health) on a thread of its own (``services.lane``)."""
        self.lane_addresses: list[str] = []
        """Where the admin lane listens: its Unix socket in the home, and ``admin_address``."""
        self._trimming: asyncio.Task[None] | None = None
        self._competitions: asyncio.Task[None] | None = None
        self.webhook: NoticeWebhook | None = None

    async def _authenticate(self, token: str) -> Identity | None:
        bot = await self.token_checks.check(token)
        if bot is None:
            return None
        why, code = barred(bot)
        return Identity(bot=bot.name, bot_id=bot.id, barred=why, barred_code=code)

    async def start(self) -> str:
        config = self.config
        # Before gRPC and the worker threads start: their memory then shares two arenas (``malloc``).
        malloc.limit_arenas()
        self.live.bind(asyncio.get_running_loop())
        options = [
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
            # gRPC would otherwise let a second server bind the same port (SO_REUSEPORT) and the
            # two would answer alternately from one database.
            ("grpc.so_reuseport", 0),
            # Connections that never finish the HTTP/2 handshake, or hold no call, are closed, so
            # idle clients cannot use up the server's file descriptors and starve the others.
            ("grpc.server_handshake_timeout_ms", int(config.handshake_timeout * 1000)),
            ("grpc.max_connection_idle_ms", int(config.idle_connection_timeout * 1000)),
            ("grpc.max_allowed_incoming_connections", incoming_connection_limit()),
        ]
        try:
            parse_address(config.address, listening=True)
        except AddressError as error:  # gRPC would listen somewhere else (port 99999: 34463)
            raise ListenError(f"cannot listen on {config.address}: {error}") from None
        server = grpc.aio.server(options=options)
        try:
            if config.tls_cert is not None and config.tls_key is not None:
                credentials = grpc.ssl_server_credentials(
                    [(config.tls_key.read_bytes(), config.tls_cert.read_bytes())]
                )
                port = server.add_secure_port(config.address, credentials)
            else:
                port = server.add_insecure_port(config.address)
        except RuntimeError:
            raise ListenError(
                bind_problem(config.address)
                or f"cannot listen on {config.address}: the address is in use or not available here"
            ) from None
        if not config.address.startswith("unix:"):
            host = config.address.rsplit(":", 1)[0]
            self.address = f"{host}:{port}"
        self.home_lock.record(self.address)
        # Bots the server launches reach it over a private Unix socket: the only way out of the
        # jail, and no TLS needed on a socket only this machine's processes can reach. It is a
        # server of its own that serves the Arena and nothing else: a jailed bot must never reach
        # the Admin service, token or not. The path is short on purpose: Unix socket paths are
        # limited to about 108 bytes.
        self.run_folder = make_run_folder()
        socket = str(self.run_folder / "arena.sock")
        jail_door = grpc.aio.server(options=options)
        jail_door.add_insecure_port(f"unix:{socket}")
        sandbox = SandboxPolicy(
            limits=config.limits,
            isolate=config.jail,
            allow_unjailed=config.allow_unjailed,
            unix_socket=socket,
            hidden_paths=self.hidden_paths,
        )
        self.confinement = confinement(sandbox)
        self.roster = Roster(
            self.pool,
            self.address,
            connect_timeout=config.connect_timeout,
            busy_timeout=config.busy_timeout,
            sandbox=sandbox,
            temp_root=self.run_folder,
            live=self.live,
            builds=self.builds,
            keep_idle_s=config.keep_bots_s,
            kept_in_all=config.keep_bots_max,
        )
        control = config.time_control
        self.admission = Admission(self.loop_lag, control.decision_ms) if config.admission_control else None
        try:
            self.executor = await self._executor(LocalExecutor(self.roster))
        except ExecutorError:  # nothing was served: leave nothing behind
            shutil.rmtree(self.run_folder, ignore_errors=True)
            if config.address.startswith("unix:"):
                Path(config.address.removeprefix("unix:")).unlink(missing_ok=True)
            raise
        self.leagues = LeagueRunner(
            self.db,
            self.roster,
            config.time_control,
            config.concurrency,
            self.admission,
            self.executor,
            away_grace=config.away_grace,
        )
        arena = ArenaService(self.pool, hello_timeout=config.hello_timeout)
        arena_pb2_grpc.add_ArenaServicer_to_server(arena, server)
        arena_pb2_grpc.add_ArenaServicer_to_server(arena, jail_door)
        self.submissions = SubmissionPipeline(
            self.db, self.roster, self.blobs, self.builds, sandbox, config.time_control,
            config.submission_limits, self.executor.retire, self.run_folder, self.admission,
        )  # fmt: skip
        submissions = SubmissionService(self.db, self.submissions)
        admin = AdminService(
            self.admin_token, self.db, self.pool, self.roster, self.leagues, self.archive,
            config.time_control, submissions, config.guests, config.rate_people,
        )  # fmt: skip
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
        self._server = server
        await jail_door.start()
        self._jail_door = jail_door
        await self._start_lane(admin, options)
        self.loop_lag.start()
        self._trimming = asyncio.create_task(malloc.trim_now_and_then(), name="malloc trim")
        for name in ("", *names[:2]):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        # A one-off match a dead server left behind has no caller waiting for it any more.
        await asyncio.to_thread(void_interrupted_one_offs, self.db)
        await asyncio.to_thread(fail_interrupted, self.db)  # nothing will finish their builds now
        self.submissions.prune_periodically()
        if config.notify_webhook:
            self.webhook = NoticeWebhook(self.db, config.notify_webhook)
            self.webhook.start()
        if config.resume_leagues:
            await self.leagues.resume_unfinished()
            # Competitions' deadlines and finals (one that passed while it was down: now).
            warn_if_set()
            self._competitions = asyncio.create_task(
                keep_competitions(self.db, self.leagues), name="competitions"
            )
        return self.address

    async def _start_lane(self, admin: AdminService, options: Sequence[tuple[str, object]]) -> None:
        """Serve the Admin API on the admin lane too (``services.lane``): on a private Unix socket
        in the home, which the local command line prefers (the home lock says where it is), and
        on ``admin_address`` if given. The home is hidden from jailed bots, socket and all."""
        places = []
        socket = admin_socket_path()
        if len(str(socket)) <= UNIX_PATH_MAX:
            places.append(Listening(f"unix:{socket}"))
        else:
            log.warning("the home's path is too long for the admin lane's socket: %s", socket)
        config = self.config
        if config.admin_address is not None:
            credentials = None
            if config.tls_cert is not None and config.tls_key is not None:
                credentials = grpc.ssl_server_credentials(
                    [(config.tls_key.read_bytes(), config.tls_cert.read_bytes())]
                )
            places.append(Listening(config.admin_address, credentials))
        if not places:
            return
        lane = AdminLane(places, options)
        lane.add(admin_pb2_grpc.add_AdminServicer_to_server, admin, on_lane=READ_ON_THE_LANE)
        try:
            await lane.start()
        except RuntimeError:
            where = config.admin_address or str(socket)
            raise ListenError(
                bind_problem(where)
                or f"cannot listen on {where}: the address is in use or not available here"
            ) from None
        self.lane = lane
        for place, port in zip(places, lane.ports, strict=True):
            if place.address.startswith("unix:"):
                self.lane_addresses.append(place.address)
            else:
                self.lane_addresses.append(f"{place.address.rsplit(':', 1)[0]}:{port}")
        self.home_lock.record(self.address, lane=self.lane_addresses[0])

    async def _executor(self, local: LocalExecutor) -> MatchExecutor:
        """The executor the config names, started (a Ray one joins its cluster here)."""
        config = self.config
        if config.executor == "local":
            return local
        settings = HostSettings(
            limits=config.limits,
            jail=config.jail,
            connect_timeout=config.connect_timeout,
            allow_unjailed=config.allow_unjailed,
            hidden_paths=self.hidden_paths,
            build_root=str(self.builds.root),
            keep_idle_s=config.keep_bots_s,
            keep_bots_max=config.keep_bots_max,
        )
        if config.executor == "processes":
            from kingmaker.server.execution.process_executor import ProcessExecutor

            workers = ProcessExecutor(config.workers or usable_cores(), settings, local, self.live)
            await workers.start()
            if self.admission is not None:
                self.admission.elsewhere = workers.lag_ms
            return workers
        if config.executor != "ray":
            raise ExecutorError(f"unknown executor {config.executor!r}: choose local, processes or ray")
        if not config.ray_address:
            raise ExecutorError("the ray executor needs --ray-address HOST:PORT (the Ray head)")
        from kingmaker.server.execution.ray_executor import RayExecutor

        executor = RayExecutor(
            config.ray_address, local, settings, config.ray_workers, self.builds, live=self.live
        )
        await executor.start()
        return executor

    async def wait(self) -> None:
        if self._server is not None:
            await self._server.wait_for_termination()

    async def stop(self, grace: float = 2.0) -> None:
        """Stop taking calls, close every bot stream, and let running calls end within ``grace``."""
        if self._server is None:  # it never started (its address was taken): only the database
            self.db.close()
            self.home_lock.release()
            return
        self.loop_lag.stop()
        if self._trimming is not None:
            self._trimming.cancel()
        if self._competitions is not None:
            self._competitions.cancel()
            await asyncio.gather(self._competitions, return_exceptions=True)
        await self._health.enter_graceful_shutdown()
        if self.webhook is not None:
            await asyncio.to_thread(self.webhook.stop)
        if self.submissions is not None:
            await self.submissions.close()
        if self.leagues is not None:
            await self.leagues.stop()
        if self.executor is not None:
            await self.executor.close()
        if self.roster is not None:
            await self.roster.close()
        for session in list(self.pool.sessions):
            self.pool.end(
                session,
                arena_pb2.ERROR_CODE_SHUTTING_DOWN,
                "the server is shutting down; matches in play will be replayed",
            )
        await asyncio.gather(
            self._server.stop(grace),
            *([self._jail_door.stop(grace)] if self._jail_door is not None else []),
            *([self.lane.stop(grace)] if self.lane is not None else []),
        )
        self.lane = None
        self._server = None
        self.token_checks.close()
        self.db.close()
        self.home_lock.release()
        if self.run_folder is not None:
            shutil.rmtree(self.run_folder, ignore_errors=True)
