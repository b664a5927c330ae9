"""A referee away from the central server: what a Ray worker node runs (``ray_executor``).

A ``MatchHost`` is a small Arena of its own: a gRPC server on a private Unix socket (no TCP port
at all), a session pool that admits only the bots it launched (by their one-time launch keys),
and a ``Roster`` that launches managed bots in the same jail and limits as the central server
and keeps them warm between matches. ``play`` referees one match exactly as ``matches.play_match``
does locally and returns its ``MatchReport``; the host never touches the database. It is a plain
class with no Ray in it: the executor wraps it as a Ray actor, one per worker node.

Its matches publish to its own live hub; ``watch`` subscribes ``on_frame`` (the worker process's
pipe to the server) to one of them, so the server's spectators see it (``process_executor``). A
Ray actor cannot call the server, so without ``on_frame`` the frames wait here until the server
takes them (``take_frames``, which ``ray_executor`` calls while anyone watches).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from kingmaker.games.api import OptionValue
from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.jail.launcher import Limits
from kingmaker.server.jail.run_folder import make_run_folder
from kingmaker.server.jail.sandbox import SandboxPolicy
from kingmaker.server.live import LiveFrame, LiveHub, Subscription
from kingmaker.server.loop_lag import LoopLag
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.refereeing.report_log import as_sent
from kingmaker.server.seats.arena import ArenaService
from kingmaker.server.seats.deadlines import KEEP_BOTS_MAX, KEEP_IDLE_S, TimeControl
from kingmaker.server.seats.roster import Entrant, Roster
from kingmaker.server.seats.sessions import SessionPool
from kingmaker.v1 import arena_pb2, arena_pb2_grpc

log = logging.getLogger("kingmaker.server")

KEPT_FRAMES = 10_000
"""Frames kept for ``take_frames`` at most: if the server stops taking them, the oldest go."""


@dataclass(frozen=True)
class HostSettings:
    """What a worker needs to launch bots as the central server would (sent once per worker)."""

    limits: Limits = field(default_factory=Limits)
    jail: bool = True
    connect_timeout: float = 15.0
    allow_unjailed: bool = False
    """As ``serve --allow-unjailed``: run bots without a jail where none works, not refuse them."""
    hidden_paths: tuple[str, ...] = ()
    """The server's home and database: covered in every jail (``SandboxPolicy.hidden_paths``)."""
    build_root: str | None = None
    """The server's built folders, read where they are (a worker process on its machine); None: a
    store of this host's own, which the executor fills (a Ray node, see ``add_build``)."""
    keep_idle_s: float = KEEP_IDLE_S
    """How long an idle bot process is kept after its last match (``Roster.keep_idle_s``)."""
    keep_bots_max: int = KEEP_BOTS_MAX
    """The most idle bot processes this host keeps (``Roster.kept_in_all``)."""


class MatchHost:
    """Referees matches of launched bots on this machine; ``start`` first, ``close`` last."""

    def __init__(self, settings: HostSettings) -> None:
        self.settings = settings
        self.loop_lag = LoopLag()
        self.pool = SessionPool(lag=self.loop_lag)  # no authenticator: launched bots only
        self.roster: Roster | None = None
        self.run_folder: Path | None = None
        self._server: grpc.aio.Server | None = None
        self.played = 0
        self.live = LiveHub()
        self.on_frame: Callable[[LiveFrame], None] | None = None
        """Where the frames of the matches the server watches go (the worker's pipe)."""
        self._watched: dict[str, Subscription] = {}
        self._frames: collections.deque[LiveFrame] = collections.deque(maxlen=KEPT_FRAMES)
        self._frames_came: asyncio.Event | None = None
        root = settings.build_root or os.path.join(tempfile.gettempdir(), f"kingmaker-builds-{os.getuid()}")
        jail = SandboxPolicy(
            isolate=settings.jail, allow_unjailed=settings.allow_unjailed, hidden_paths=settings.hidden_paths
        )
        self.builds = BuildStore(Path(root), jail)
        """Built versions' folders: the server's own, or this node's cache of them."""

    async def start(self) -> str:
        """Open the private socket; where this host runs (host name and pid, for the logs)."""
        if self._server is None:
            self.run_folder = make_run_folder()
            path = str(self.run_folder / "arena.sock")
            server = grpc.aio.server()
            arena_pb2_grpc.add_ArenaServicer_to_server(ArenaService(self.pool), server)
            server.add_insecure_port(f"unix:{path}")
            await server.start()
            self.loop_lag.start()
            self._server = server
            sandbox = SandboxPolicy(
                limits=self.settings.limits,
                isolate=self.settings.jail,
                allow_unjailed=self.settings.allow_unjailed,
                unix_socket=path,
                hidden_paths=self.settings.hidden_paths,
            )
            self.roster = Roster(
                self.pool,
                f"unix:{path}",
                connect_timeout=self.settings.connect_timeout,
                sandbox=sandbox,
                temp_root=self.run_folder,
                live=self.live,
                builds=self.builds,
                keep_idle_s=self.settings.keep_idle_s,
                kept_in_all=self.settings.keep_bots_max,
            )
        return f"{socket.gethostname()}:{os.getpid()}"

    async def play(
        self,
        game: str,
        entrants: Sequence[Entrant],
        seed: int,
        options: Mapping[str, OptionValue],
        control: TimeControl,
        match_id: str,
    ) -> MatchReport:
        await self.start()
        assert self.roster is not None
        report = await play_match(self.roster, game, entrants, seed, options, control, match_id)
        self.played += 1
        # Packed here, where the actions are at hand: the central server stores it as it comes.
        return as_sent(report)

    def watch(self, match_id: str, on: bool) -> None:
        """Send match ``match_id``'s frames to ``on_frame`` (or keep them for ``take_frames``) from
        now on, as it stands first; or stop."""
        if on and match_id not in self._watched:
            send = self.on_frame or self._keep_frame
            self._watched[match_id] = self.live.subscribe(match_id, lambda stamp, frame: send(frame))
        elif not on and match_id in self._watched:
            self.live.unsubscribe(self._watched.pop(match_id))

    async def take_frames(self, wait_s: float) -> list[LiveFrame]:
        """The frames of watched matches kept since the last call, in order; waits up to
        ``wait_s`` for one when none is kept (so the caller asks again at once, not on a timer)."""
        if not self._frames and wait_s > 0:
            came = self._frames_came = self._frames_came or asyncio.Event()
            came.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(came.wait(), wait_s)
        frames = list(self._frames)
        self._frames.clear()
        return frames

    def _keep_frame(self, frame: LiveFrame) -> None:
        self._frames.append(frame)
        if self._frames_came is not None:
            self._frames_came.set()

    async def has_build(self, build_hash: str) -> bool:
        """Whether this host has that built folder already (a Ray node keeps its cache)."""
        return self.builds.has(build_hash)

    async def add_build(self, build_hash: str, packed: bytes) -> None:
        """Keep a built folder the server sent (``BuildStore.pack``), once per hash."""
        await asyncio.to_thread(self.builds.add_packed, build_hash, packed)

    async def retire(self, bot_ids: set[int]) -> int:
        """Stop the warm processes of these bots; how many matches this host has played."""
        if self.roster is not None:
            await self.roster.retire(bot_ids)
        return self.played

    async def close(self) -> None:
        if self.roster is not None:
            await self.roster.close()
        for session in list(self.pool.sessions):
            self.pool.end(session, arena_pb2.ERROR_CODE_SHUTTING_DOWN, "the worker is shutting down")
        if self._server is not None:
            self.loop_lag.stop()
            await self._server.stop(1.0)
            self._server = None
        if self.run_folder is not None:
            shutil.rmtree(self.run_folder, ignore_errors=True)
