"""Matches on a Ray cluster: each match of managed bots refereed on a worker node.

``serve --executor ray --ray-address HOST:PORT`` makes the central server a Ray driver. On every
live node of the cluster that offers CPUs it places one ``MatchHost`` actor (``match_host``),
pinned to that node; a match whose seats are all managed bots becomes a call to the least busy
host, which launches that match's bots on its node (jailed as locally), referees it there and
returns the ``MatchReport``; the central server then writes the result in one transaction
(``rated``). The hosts keep their bots warm across matches, as the local roster does.

What stays on the central server: every match with a remote seat (remote bots connect to the
central server, so their seats are refereed where they connect), the database, the scheduler.

Failures: a host that dies mid-match (its node lost, its process killed) fails the call with a
Ray actor error; the match is played again from scratch on another host, up to ``ATTEMPTS``
times, and here when no worker is left, so a lost node does not lose a league. Nothing of a lost
attempt was written, and ``finish_match`` counts a match id once whatever happens, so a retried
match is never counted twice. A node whose host died is not used again in this run (a node that
comes back joins under a new id and gets a new host).

Spectators: when the server's live hub gains a first watcher of a match a host plays, the host is
told to ``watch`` it, and a task of the server's takes that host's frames (``take_frames``: a call
that waits for the next frames, so they come as moves are made) into the hub, until nothing on
that host is watched any more.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kingmaker.games.api import OptionValue
from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.execution.executors import ExecutorError, LocalExecutor, WorkerLoad
from kingmaker.server.execution.match_host import HostSettings, MatchHost
from kingmaker.server.live import LiveHub
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.roster import Entrant

log = logging.getLogger("kingmaker.server")

ATTEMPTS = 3
"""Hosts a match is tried on before it is voided (and so scheduled again by its league)."""
REFRESH_S = 5.0
"""How often the executor looks for nodes that joined the cluster."""
HOST_START_TIMEOUT_S = 120.0
FRAMES_WAIT_S = 1.0
"""How long one call for a host's frames waits for the next (a call answers as soon as one comes)."""


@dataclass
class _Host:
    node_id: str
    actor: Any
    where: str = ""
    busy: int = 0
    builds: set[str] = field(default_factory=set)
    """Built folders this host is known to have."""
    sending: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while builds are sent: matches starting together send a folder once, not each."""
    watched: set[str] = field(default_factory=set)
    """Its matches whose frames the server's spectators want."""
    frames: asyncio.Task[None] | None = None
    """The task that takes its frames into the server's live hub, while any is watched."""


class RayExecutor:
    """Plays matches of managed bots on Ray worker nodes; everything else with ``local``."""

    def __init__(
        self,
        address: str,
        local: LocalExecutor,
        settings: HostSettings,
        max_hosts: int = 0,
        builds: BuildStore | None = None,
        live: LiveHub | None = None,
    ) -> None:
        self.address = address
        self.max_hosts = max_hosts
        """Use at most this many worker nodes (0: every one)."""
        self.local = local
        # A node keeps built folders in a cache of its own, sent from ``builds`` once per hash.
        self.settings = dataclasses.replace(settings, build_root=None)
        self.builds = builds
        self.sent_builds = 0
        """Built folders packed and sent to a node (each once per node)."""
        self.hosts: dict[str, _Host] = {}
        self.lost_nodes: set[str] = set()
        self.retried = 0
        """Attempts lost with their host and played again (for tests and the logs)."""
        self.played_here = 0
        """Matches of managed bots played on the central server because no worker was left."""
        self._refreshed_at = 0.0
        self._refreshing: asyncio.Lock | None = None
        self._ray: Any = None
        self.live = live
        self.playing: dict[str, _Host] = {}
        """Matches in play on a host, by match id."""
        self._orders: set[asyncio.Task[Any]] = set()
        if live is not None:
            live.on_watch = self._watch

    async def start(self) -> None:
        """Join the cluster as its driver and place a host on every worker node."""
        try:
            import ray
        except ImportError:
            raise ExecutorError(
                "the ray executor needs Ray on this machine: pip install 'kingmaker[ray]'"
            ) from None
        _reachable(self.address)
        self._ray = ray
        # A head on loopback is a one-machine cluster: say so, rather than let Ray probe the
        # network for this machine's address.
        loopback = self.address.rsplit(":", 1)[0] in ("127.0.0.1", "localhost")
        try:
            ray.init(
                address=self.address,
                _node_ip_address="127.0.0.1" if loopback else None,
                namespace="kingmaker",
                log_to_driver=False,
                configure_logging=False,
                runtime_env={"env_vars": {"GRPC_ENABLE_FORK_SUPPORT": "false"}},
            )
        except (ConnectionError, ValueError, RuntimeError) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise ExecutorError(f"cannot join the Ray cluster at {self.address}: {first}") from None
        self._refreshing = asyncio.Lock()
        await self._refresh(force=True)
        log.info("ray executor: %d worker hosts at %s", len(self.hosts), self.address)

    async def play(
        self,
        game: str,
        entrants: Sequence[Entrant],
        seed: int,
        options: Mapping[str, OptionValue],
        control: TimeControl,
        match_id: str,
    ) -> MatchReport:
        if any(entrant.command is None for entrant in entrants):  # a remote seat: refereed here
            return await self.local.play(game, entrants, seed, options, control, match_id)
        ray = self._ray
        for attempt in range(1, ATTEMPTS + 1):
            host = await self._pick()
            if host is None:
                log.warning("match %s: no Ray worker is alive; playing it on the central server", match_id)
                self.played_here += 1
                return await self.local.play(game, entrants, seed, options, control, match_id)
            host.busy += 1
            self.playing[match_id] = host
            try:
                await self._send_builds(host, entrants)
                if self.live is not None and match_id in self.live.watching:
                    self._watch(match_id, True)
                call = host.actor.play.remote(game, list(entrants), seed, dict(options), control, match_id)
                report: MatchReport = await call
                return report
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as error:
                first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
                log.warning(
                    "match %s: attempt %d lost with its worker %s (%s); playing it again elsewhere",
                    match_id, attempt, host.where, first,
                )  # fmt: skip
                self.retried += 1
                self._drop(host)
            finally:
                host.busy -= 1
                self._watch(match_id, False)
                self.playing.pop(match_id, None)
        raise RuntimeError(f"match {match_id} was lost with {ATTEMPTS} workers in a row")

    async def _send_builds(self, host: _Host, entrants: Sequence[Entrant]) -> None:
        """Give the host every built folder of this match it lacks (it caches them by hash)."""
        wanted = {entrant.build_hash for entrant in entrants if entrant.build_hash} - host.builds
        if not wanted:
            return
        async with host.sending:
            for build_hash in sorted(wanted - host.builds):
                if not await host.actor.has_build.remote(build_hash) and self.builds is not None:
                    packed = await asyncio.to_thread(self.builds.pack, build_hash)
                    await host.actor.add_build.remote(build_hash, packed)
                    self.sent_builds += 1
                    log.info("ray executor: sent the built folder %s to %s", build_hash[:12], host.where)
                host.builds.add(build_hash)

    def _watch(self, match_id: str, on: bool) -> None:
        """Have the host playing ``match_id`` keep its frames for the server (or stop); the live
        hub calls this when the match gains its first watcher or loses its last."""
        host = self.playing.get(match_id)
        if host is None or (match_id in host.watched) == on:
            return
        if on:
            host.watched.add(match_id)
        else:
            host.watched.discard(match_id)
        order = asyncio.create_task(_await(host.actor.watch.remote(match_id, on)))
        self._orders.add(order)
        order.add_done_callback(self._orders.discard)
        order.add_done_callback(lambda done: done.cancelled() or done.exception())  # a lost host: fine
        if on and (host.frames is None or host.frames.done()):
            host.frames = asyncio.create_task(self._take_frames(host))

    async def _take_frames(self, host: _Host) -> None:
        """Bring the host's frames into the server's live hub while any of its matches is watched,
        and once more after (the last frames of a match that just ended)."""
        assert self.live is not None
        try:
            while True:
                watching = bool(host.watched)
                frames = await host.actor.take_frames.remote(FRAMES_WAIT_S if watching else 0.0)
                for frame in frames:
                    self.live.publish(frame)
                if not watching and not frames:
                    return
        except Exception as error:  # the host is lost: its matches are played again elsewhere
            log.info("ray executor: no more frames from %s: %s", host.where, type(error).__name__)

    async def retire(self, bot_ids: set[int]) -> None:
        """Stop these bots' warm processes here and on every worker."""
        await self.local.retire(bot_ids)
        calls = [host.actor.retire.remote(bot_ids) for host in list(self.hosts.values())]
        await asyncio.gather(*calls, return_exceptions=True)

    async def close(self) -> None:
        """Stop every host (and so its bots), then leave the cluster."""
        ray = self._ray
        if ray is None:
            return
        hosts = list(self.hosts.values())
        self.hosts.clear()
        for host in hosts:
            if host.frames is not None:
                host.frames.cancel()
        closing = [host.actor.close.remote() for host in hosts]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), 30)
        for host in hosts:
            with contextlib.suppress(Exception):
                ray.kill(host.actor)
        ray.shutdown()
        self._ray = None

    def loads(self) -> list[WorkerLoad]:
        """None: a Ray host's figures stay on its node (``workers`` says where the hosts run)."""
        return []

    def workers(self) -> list[str]:
        """Where the live hosts run (host name and pid)."""
        return [host.where for host in self.hosts.values()]

    async def _pick(self) -> _Host | None:
        """The least busy live host, after looking for new nodes now and then."""
        if not self.hosts or time.monotonic() - self._refreshed_at > REFRESH_S:
            await self._refresh(force=not self.hosts)
        if not self.hosts:
            return None
        return min(self.hosts.values(), key=lambda host: host.busy)

    def _drop(self, host: _Host) -> None:
        if self.hosts.get(host.node_id) is host:
            del self.hosts[host.node_id]
        self.lost_nodes.add(host.node_id)
        with contextlib.suppress(Exception):
            self._ray.kill(host.actor)

    async def _refresh(self, force: bool = False) -> None:
        """Place a host on every live node with CPUs that has none yet (one caller at a time)."""
        assert self._refreshing is not None
        async with self._refreshing:
            if not force and time.monotonic() - self._refreshed_at <= REFRESH_S:
                return
            ray = self._ray
            nodes = await asyncio.to_thread(ray.nodes)
            self._refreshed_at = time.monotonic()
            fresh = [
                node["NodeID"]
                for node in nodes
                if node.get("Alive")
                and node.get("Resources", {}).get("CPU", 0) > 0
                and node["NodeID"] not in self.hosts
                and node["NodeID"] not in self.lost_nodes
            ]
            if self.max_hosts:
                fresh = fresh[: max(0, self.max_hosts - len(self.hosts))]
            if not fresh:
                return
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            remote_host = ray.remote(MatchHost)
            placed = [
                _Host(
                    node_id,
                    remote_host.options(
                        num_cpus=0,
                        max_restarts=0,
                        max_concurrency=1000,
                        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
                    ).remote(self.settings),
                )
                for node_id in fresh
            ]
            started = await asyncio.gather(
                *(
                    asyncio.wait_for(_await(host.actor.start.remote()), HOST_START_TIMEOUT_S)
                    for host in placed
                ),
                return_exceptions=True,
            )
            for host, where in zip(placed, started, strict=True):
                if isinstance(where, BaseException):
                    log.warning("ray executor: no host on node %s: %s", host.node_id[:12], where)
                    self._drop(host)
                    continue
                host.where = str(where)
                self.hosts[host.node_id] = host


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Fail at once, in one line, when nothing answers at the head's address (Ray itself would
    retry for minutes)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ExecutorError(f"--ray-address must be HOST:PORT, not {address!r}")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as error:
        raise ExecutorError(
            f"cannot join the Ray cluster at {address}: {error.strerror or error} (is its head running?)"
        ) from None


async def _await(reference: Any) -> Any:
    return await reference
