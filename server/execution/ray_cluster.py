"""A Ray cluster on this machine, on loopback only, for tests and benchmarks.

Each node is a real ``ray start --block`` process tree (a head with no CPUs, so it only
coordinates, and workers with the CPUs given), started in a process group of its own so that a
test can kill one node as a crash would (SIGKILL to the whole group), and ``stop`` kills what is
left. All nodes share one short temporary folder (Ray's Unix socket paths must stay under ~107
bytes), and ``stop`` ends every process whose command line names that folder, so nothing of the
cluster outlives it whatever happened.

Loopback only: Ray's own servers (the control store, each raylet, the agents) listen on every
interface of their network namespace whatever ``--node-ip-address`` says. So the whole cluster,
and the kingmaker server that drives it (``inside``), run in a network namespace of their own
that has nothing but a loopback interface: each node is told 127.0.0.1, and no port of it can be
reached from outside this namespace, let alone this machine. Clients reach the kingmaker server
through its Unix socket, which a network namespace does not hide.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

LOOPBACK = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def ray_program() -> str:
    """The ``ray`` command of this interpreter's environment."""
    beside = Path(sys.executable).with_name("ray")
    if beside.exists():
        return str(beside)
    found = shutil.which("ray")
    if found is None:
        raise RuntimeError("the ray command is not installed (pip install 'kingmaker[ray]')")
    return found


@dataclass
class RayNode:
    process: subprocess.Popen[bytes]
    log: Path
    head: bool = False

    def up(self) -> bool:
        return self.process.poll() is None and b"Ray runtime started" in self.log.read_bytes()

    def kill(self) -> None:
        """SIGKILL the node's whole process group: its raylet and every worker, as a crash would."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)


@dataclass
class LocalRayCluster:
    """``start()`` a head, ``add_worker()`` as many workers as needed, always ``stop()``."""

    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="kmray-", dir="/tmp")))
    port: int = 0
    nodes: list[RayNode] = field(default_factory=list)
    namespace: subprocess.Popen[bytes] | None = None
    """The process that holds the cluster's network namespace open."""
    handed_out: set[int] = field(default_factory=set)
    """Ports given to this cluster's nodes so far: no two of its components may share one."""

    def inside(self, command: list[str]) -> list[str]:
        """``command`` made to run in the cluster's network namespace."""
        if self.namespace is None:
            raise RuntimeError("the cluster has not started")
        user = [] if running_as_root() else ["--user", "--preserve-credentials"]
        return ["nsenter", *user, f"--net=/proc/{self.namespace.pid}/ns/net", "--", *command]

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def start(self, timeout: float = 90.0) -> str:
        """Start the head (no CPUs: it schedules, it does not play); its address."""
        self.namespace = _loopback_namespace(self.folder)
        self.port = self.distinct_port()
        self._launch(["--head", f"--port={self.port}", "--num-cpus=0", f"--temp-dir={self.folder}",
                      "--include-dashboard=false", f"--ray-client-server-port={self.distinct_port()}"],
                     head=True)  # fmt: skip
        self.wait_for_nodes(1, timeout)
        return self.address

    def add_worker(self, cpus: int = 1, timeout: float = 90.0) -> RayNode:
        count = self.alive_nodes() + 1
        node = self._launch([f"--address={self.address}", f"--num-cpus={cpus}"], head=False)
        self.wait_for_nodes(count, timeout)
        return node

    def workers(self) -> list[RayNode]:
        return [node for node in self.nodes if not node.head and node.process.poll() is None]

    def alive_nodes(self) -> int:
        return 1 + len(self.workers()) if self.nodes and self.nodes[0].process.poll() is None else 0

    def wait_for_nodes(self, count: int, timeout: float) -> None:
        """Wait until ``count`` nodes have said they are up (``ray start`` says so once its node
        has joined the cluster)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for node in self.nodes:
                if node.process.poll() is not None:
                    raise RuntimeError(f"a ray node exited: {node.log.read_text()[-2000:]}")
            if sum(1 for node in self.nodes if node.up()) >= count:
                return
            time.sleep(0.2)
        raise RuntimeError(f"the ray cluster did not reach {count} nodes within {timeout:g} s")

    def stop(self) -> None:
        """Kill every node, then anything else that still names this cluster's folder."""
        for node in reversed(self.nodes):
            node.kill()
        self.nodes.clear()
        if self.namespace is not None:
            self.namespace.kill()
            self.namespace.wait(timeout=10)
            self.namespace = None
        kill_processes_naming(str(self.folder))
        shutil.rmtree(self.folder, ignore_errors=True)

    def distinct_port(self) -> int:
        """A free port that no other component of this cluster was given. Each probe closes
        before the next, so the system may offer the same port twice: Ray then refuses to start
        a node whose components share a port (seen in CI)."""
        while (port := free_port()) in self.handed_out:
            pass
        self.handed_out.add(port)
        return port

    def _launch(self, args: list[str], head: bool) -> RayNode:
        log = self.folder / f"node-{len(self.nodes)}.log"
        ports = [
            f"--node-ip-address={LOOPBACK}",
            f"--node-manager-port={self.distinct_port()}",
            f"--object-manager-port={self.distinct_port()}",
            f"--metrics-export-port={self.distinct_port()}",
            f"--dashboard-agent-listen-port={self.distinct_port()}",
            f"--dashboard-agent-grpc-port={self.distinct_port()}",
            f"--runtime-env-agent-port={self.distinct_port()}",
            "--object-store-memory=100000000",
            "--disable-usage-stats",
            "--block",
        ]
        environment = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_enable_metrics_collection": "0"}
        with log.open("wb") as output:
            process = subprocess.Popen(
                self.inside([ray_program(), "start", *args, *ports]),
                stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, env=environment,
            )  # fmt: skip
        node = RayNode(process, log, head)
        self.nodes.append(node)
        return node


def running_as_root() -> bool:
    return os.geteuid() == 0


def _loopback_namespace(folder: Path) -> subprocess.Popen[bytes]:
    """A process in a new network namespace whose loopback interface is up, and nothing else.
    (Unprivileged, the namespace is made inside a user namespace of one's own.)"""
    user = [] if running_as_root() else ["--user", "--map-root-user"]
    ready = folder / "namespace-ready"
    process = subprocess.Popen(
        ["unshare", *user, "--net", "--", sys.executable, "-c", _LOOPBACK_UP, str(ready)],
        stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not ready.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("cannot make a network namespace for the Ray cluster (unshare --net)")
        time.sleep(0.05)
    return process


# Brings up "lo" (SIOCGIFFLAGS/SIOCSIFFLAGS with IFF_UP), says so, and waits to be killed.
_LOOPBACK_UP = """
import fcntl, pathlib, signal, socket, struct, sys
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
    flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0)))[1]
    fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 1))
pathlib.Path(sys.argv[1]).touch()
while True:
    signal.pause()
"""


def kill_processes_naming(text: str) -> list[int]:
    """SIGKILL every process of this user whose command line contains ``text``; their pids."""
    killed = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in command:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry.name), signal.SIGKILL)
                killed.append(int(entry.name))
    return killed
