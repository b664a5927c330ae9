"""Does the Admin API answer while 1,000 remote bots connect, and while 4 large uploads arrive?
(issue 35: ``league create`` said "cannot reach the server" while 1,000 remote bots connected.)

A real ``kingmaker serve`` (default executor and jail) with 1,000 registered bots. From this
process, Admin calls in turn (ListBots, GetLeague, CreateLeague, GetStandings), one after another
with 20 ms between them, where the local command line sends them (the admin lane's socket, that
the home lock names, ``server/services/lane.py``) and, alternating call by call, on the server's
public address; their p50 and p99 in three kinds of window, alternating:

- **swarm**: the 1,000 bots connect at once (``remote_swarm.py``: a few client processes, each
  holding many grpc.aio streams), from their start until every bot is welcomed (and at least
  ``MIN_WINDOW_S``); then they are stopped;
- **uploads**: 4 archives of the largest size the server accepts arrive at once through
  ``Submit``, sent from another process as ``kingmaker submit`` sends them;
- **quiet**: nothing else, for as long as the swarm window before it.

A call that fails counts as its timeout (``CALL_TIMEOUT_S``); failures are counted too. The
clients' CPU (the swarm processes) and the server's (``serve`` and its workers) are read from
/proc, so what the clients took from the machine is on the table.

With ``--before PYTHON`` (a Python whose ``kingmaker`` is another tree's, e.g. a virtualenv of
that tree), a second server of that tree runs beside, with its own home, and each of its windows
alternates with this tree's, so both are measured in the same run.

    python bench/admin_under_load.py [--quick] [--bots N] [--database-url URL] [--before PYTHON]
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from proc_stats import cpu_seconds, free_port
from table import Row, Spread, print_rows
from uploads_beside_calls import chunks

from kingmaker.ladder.bots import bots
from kingmaker.ladder.storage.db import open_database
from kingmaker.server.building.submission_limits import ArchiveLimits
from kingmaker.server.locations import admin_lane
from kingmaker.server.services.admin import READ_ON_THE_LANE
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

HERE = Path(__file__).parent
SWARM = HERE / "remote_swarm.py"
GAME = "kingdoms"
SWARM_PROCESSES = 4
"""Client processes the bots are spread over (each holds bots / SWARM_PROCESSES streams)."""
CALL_TIMEOUT_S = 30.0
PAUSE_S = 0.02
MIN_WINDOW_S = 3.0
CONNECT_LIMIT_S = 240.0
UPLOADS = 4
MiB = 1024 * 1024
TOKEN = "bench"


def tree(pid: int) -> list[int]:
    """The process and its descendants."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        todo.extend(int(child) for child in children)
    return found


def largest_archive() -> bytes:
    """A gzipped tar of random bytes as close under the server's archive bound as it goes."""
    limit = ArchiveLimits().archive_bytes
    noise = os.urandom(limit - 256 * 1024)  # gzip adds ~0.03% to noise, tar 1.5 kB
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz", compresslevel=1) as packed:
        member = tarfile.TarInfo("noise.bin")
        member.size = len(noise)
        packed.addfile(member, io.BytesIO(noise))
    payload = data.getvalue()
    assert len(payload) <= limit, (len(payload), limit)
    return payload


def upload_all(address: str, paths: list[str], names: list[str]) -> None:
    """(In a process of its own.) Send the archives at once, each on its own channel."""
    errors: list[BaseException] = []

    def one(path: str, name: str) -> None:
        payload = Path(path).read_bytes()
        options = [("grpc.max_send_message_length", 4 * MiB)]
        with grpc.insecure_channel(address, options=options) as channel:
            try:
                admin_pb2_grpc.AdminStub(channel).Submit(
                    chunks(name, payload), metadata=(("authorization", f"Bearer {TOKEN}"),), timeout=600
                )
            except grpc.RpcError as error:
                errors.append(error)

    threads = [threading.Thread(target=one, args=pair) for pair in zip(paths, names, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit(f"an upload failed: {errors[0]}")


READS = "lane: its reads (ListBots, GetStandings)"
HANDED = "lane: calls it hands to the main loop (CreateLeague, GetLeague)"
ROUTES = ("lane", READS, HANDED, "address")
"""Where Admin calls go: the admin lane (what the local command line uses; also split into the
calls it reads on its own loop, ``READ_ON_THE_LANE``, and the others), the public address."""


@dataclass
class Window:
    """The Admin calls timed in one window, by route."""

    times_ms: dict[str, list[float]] = field(default_factory=lambda: {route: [] for route in ROUTES})
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    server_cpu: float = 0.0
    client_cpu: float = 0.0
    refused: int = 0

    def percentile(self, share: float, route: str) -> float:
        ordered = sorted(self.times_ms[route])
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    def calls(self) -> int:
        return sum(len(times) for times in self.times_ms.values())


def make_archives(folder: Path) -> tuple[list[str], float]:
    """``UPLOADS`` archives of the largest size, each its own (the same bytes are stored once)."""
    paths = []
    for number in range(UPLOADS):
        payload = largest_archive()
        path = folder / f"archive-{number}.tar.gz"
        path.write_bytes(payload)
        paths.append(str(path))
    return paths, len(payload) / MiB


class Bench:
    """One ``kingmaker serve`` (of this tree, or of ``before``) and the windows measured on it."""

    def __init__(
        self, size: int, database_url: str | None, archives: list[str], python: str = sys.executable
    ) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="km-admin-load-"))
        self.home = self.folder / "home"
        self.home.mkdir(mode=0o700)
        self.url = database_url or f"sqlite:///{self.home / 'kingmaker.db'}"
        db = open_database(self.url)
        tokens = []
        for number in range(size):
            _, token = bots.register_bot(db, f"remote-{number:04d}", [GAME])
            tokens.append(token)
        db.close()
        self.token_files = []
        share = -(-size // SWARM_PROCESSES)
        for number in range(SWARM_PROCESSES):
            path = self.folder / f"tokens-{number}.json"
            path.write_text(json.dumps(tokens[number * share : (number + 1) * share]))
            self.token_files.append(path)
        self.archives = archives
        self.address = f"127.0.0.1:{free_port()}"
        environment = dict(os.environ, KINGMAKER_HOME=str(self.home))
        self.log = open(self.folder / "serve.log", "wb")  # noqa: SIM115  # closed in close()
        self.serve = subprocess.Popen(
            [python, "-m", "kingmaker.server.cli", "serve", "--address", self.address,
             "--database-url", self.url, "--admin-token", TOKEN],
            env=environment, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.environment = environment
        self.python = python
        self.metadata = (("authorization", f"Bearer {TOKEN}"),)
        channel = grpc.insecure_channel(self.address)
        grpc.channel_ready_future(channel).result(timeout=120)
        admin_pb2_grpc.AdminStub(channel).ListGames(admin_pb2.ListGamesRequest(), timeout=120)  # serving
        # Where the local command line would send its calls (the lane the home lock names, if
        # this server has one), and the public address.
        previous = os.environ.get("KINGMAKER_HOME")
        os.environ["KINGMAKER_HOME"] = str(self.home)
        try:
            lane = admin_lane(self.address)
        finally:
            if previous is None:
                del os.environ["KINGMAKER_HOME"]
            else:
                os.environ["KINGMAKER_HOME"] = previous
        self.channels = {"address": channel}
        if lane is not None:
            self.channels["lane"] = grpc.insecure_channel(lane)
        self.leagues = 0
        self.rounds = 0
        self.calls = {
            route: self._calls(admin_pb2_grpc.AdminStub(channel), route)
            for route, channel in self.channels.items()
        }

    def _calls(
        self, stub: admin_pb2_grpc.AdminStub, route: str
    ) -> Iterator[tuple[str, Callable[[], object]]]:
        metadata, timeout = self.metadata, CALL_TIMEOUT_S
        while True:
            self.leagues += 1
            request = admin_pb2.CreateLeagueRequest(
                name=f"league-{route}-{self.leagues}",
                game=GAME,
                format="round_robin",
                bots=["remote-0000", "remote-0001"],
            )
            yield (
                "CreateLeague",
                functools.partial(stub.CreateLeague, request, metadata=metadata, timeout=timeout),
            )
            listing = admin_pb2.ListBotsRequest(limit=100)
            yield "ListBots", functools.partial(stub.ListBots, listing, metadata=metadata, timeout=timeout)
            league = admin_pb2.GetLeagueRequest(name=request.name)
            yield "GetLeague", functools.partial(stub.GetLeague, league, metadata=metadata, timeout=timeout)
            ladder = admin_pb2.GetStandingsRequest(game=GAME)
            yield (
                "GetStandings",
                functools.partial(stub.GetStandings, ladder, metadata=metadata, timeout=timeout),
            )

    def _server_cpu(self) -> float:
        return sum(cpu_seconds(pid, reaped_children=True) for pid in tree(self.serve.pid))

    def _time_calls(self, window: Window, until: Callable[[], bool]) -> None:
        """Calls until ``until``, alternating between the routes this server has."""
        started, cpu = time.perf_counter(), self._server_cpu()
        routes = list(self.calls)
        turn = 0
        while not until():
            route = routes[turn % len(routes)]
            turn += 1
            method, call = next(self.calls[route])
            began = time.perf_counter()
            try:
                call()
            except grpc.RpcError as error:
                window.failures.append(f"{route}: {error.code().name}")
                took = CALL_TIMEOUT_S * 1000
            else:
                took = 1000 * (time.perf_counter() - began)
            window.times_ms[route].append(took)
            if route == "lane":
                window.times_ms[READS if method in READ_ON_THE_LANE else HANDED].append(took)
            time.sleep(PAUSE_S)
        window.seconds = time.perf_counter() - started
        window.server_cpu = self._server_cpu() - cpu

    def swarm(self, cli: list[tuple[bool, str]] | None = None) -> Window:
        """Calls while the bots connect: from the swarm's start until all are welcomed. With
        ``cli``, a ``kingmaker league create`` runs meanwhile too; its outcome goes there."""
        window = Window()
        command = [sys.executable, str(SWARM), "--server", self.address, "--report"]
        clients = [
            subprocess.Popen([*command, "--tokens", str(path)], stdout=subprocess.PIPE, text=True)
            for path in self.token_files
        ]
        user = threading.Thread(
            target=lambda: cli.append(self.cli_league_create()) if cli is not None else None
        )
        user.start()
        welcomed = [False] * len(clients)

        def watch(number: int) -> None:
            stdout = clients[number].stdout
            assert stdout is not None
            if stdout.readline().startswith("welcomed"):
                welcomed[number] = True

        watchers = [
            threading.Thread(target=watch, args=(number,), daemon=True) for number in range(len(clients))
        ]
        for watcher in watchers:
            watcher.start()
        began = time.monotonic()

        def over() -> bool:
            elapsed = time.monotonic() - began
            return elapsed > CONNECT_LIMIT_S or (all(welcomed) and elapsed > MIN_WINDOW_S)

        self._time_calls(window, over)
        user.join()
        if not all(welcomed):
            window.failures.append("not all bots were welcomed")
        window.client_cpu = sum(cpu_seconds(client.pid, reaped_children=True) for client in clients)
        for client in clients:
            client.send_signal(signal.SIGTERM)
        for client in clients:
            out, _ = client.communicate(timeout=60)
            for line in out.splitlines():
                if line.startswith("refused"):
                    window.refused += int(line.split()[1])
        time.sleep(2.0)  # the server sees the streams close
        self.last_seconds = window.seconds
        return window

    def quiet(self, seconds: float | None = None) -> Window:
        window = Window()
        end = time.monotonic() + (seconds or getattr(self, "last_seconds", 10.0))
        self._time_calls(window, lambda: time.monotonic() > end)
        return window

    def uploads(self) -> Window:
        """Calls while the archives arrive at once, from another process."""
        self.rounds += 1
        window = Window()
        names = [f"upload-{self.rounds}-{number}" for number in range(UPLOADS)]
        sender = multiprocessing.get_context("spawn").Process(
            target=upload_all, args=(self.address, self.archives, names)
        )
        sender.start()
        self._time_calls(window, lambda: not sender.is_alive())
        sender.join()
        if sender.exitcode:
            window.failures.append(f"the uploads failed ({sender.exitcode})")
        self.last_seconds = window.seconds
        return window

    def cli_league_create(self) -> tuple[bool, str]:
        """``kingmaker league create`` as a user types it; whether it worked, and what it said."""
        self.leagues += 1
        done = subprocess.run(
            [self.python, "-m", "kingmaker.server.cli", "league", "create", f"cli-{self.leagues}",
             "--game", GAME, "--bot", "remote-0002", "--bot", "remote-0003",
             "--server", self.address, "--admin-token", TOKEN],
            env=self.environment, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        return done.returncode == 0, (done.stderr.strip().splitlines() or [""])[-1]

    def close(self) -> None:
        for channel in self.channels.values():
            channel.close()
        self.serve.send_signal(signal.SIGINT)
        try:
            self.serve.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.serve.kill()
            self.serve.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def spread(windows: list[Window], of: Callable[[Window], float]) -> Spread:
    return Spread.of([of(window) for window in windows])


@dataclass
class Measured:
    """One server's windows: while the bots connect, while the archives arrive, and the quiet
    window after each."""

    swarms: list[Window] = field(default_factory=list)
    quiet: list[Window] = field(default_factory=list)
    uploads: list[Window] = field(default_factory=list)
    quiet_after_uploads: list[Window] = field(default_factory=list)
    cli: list[tuple[bool, str]] = field(default_factory=list)


def measure(benches: dict[str, Bench], runs: int, loads: list[float]) -> dict[str, Measured]:
    """Each kind of window on each server in turn, ``runs`` times, alternating."""
    found = {name: Measured() for name in benches}
    for _ in range(runs):
        for name, bench in benches.items():
            loads.append(os.getloadavg()[0])
            found[name].swarms.append(bench.swarm())
            found[name].quiet.append(bench.quiet())
    for _ in range(runs):
        for name, bench in benches.items():
            loads.append(os.getloadavg()[0])
            found[name].uploads.append(bench.uploads())
            found[name].quiet_after_uploads.append(bench.quiet())
    for _ in range(runs):  # the command line beside the swarm: a user's `league create`
        for name, bench in benches.items():
            bench.swarm(found[name].cli)
    return found


def rows(runs: int, size: int, database_url: str | None, before: str | None = None) -> list[Row]:
    folder = Path(tempfile.mkdtemp(prefix="km-admin-archives-"))
    benches: dict[str, Bench] = {}
    loads: list[float] = []
    try:
        archives, archive_mib = make_archives(folder)
        benches["this tree"] = Bench(size, database_url, archives)
        if before is not None:
            benches["before"] = Bench(size, database_url, archives, before)
        measured = measure(benches, runs, loads)
    finally:
        for bench in benches.values():
            bench.close()
        shutil.rmtree(folder, ignore_errors=True)
    load = Spread.of(loads)
    found = []
    for server, results in measured.items():
        routes = [route for route in ROUTES if results.swarms[0].times_ms[route]]
        for kind, ours, theirs in (
            (f"while {size:,} bots connect", results.swarms, results.quiet),
            (
                f"while {UPLOADS} archives of {archive_mib:.1f} MiB arrive",
                results.uploads,
                results.quiet_after_uploads,
            ),
        ):
            for route in routes:
                for share, name in ((0.5, "p50"), (0.99, "p99")):
                    value = spread(ours, lambda w, share=share, route=route: w.percentile(share, route))
                    reference = spread(theirs, lambda w, share=share, route=route: w.percentile(share, route))
                    goal = "< 200 ms" if name == "p99" else ""
                    met = value.median < 200 if name == "p99" else None
                    found.append(
                        Row(
                            f"admin ({server})",
                            f"Admin call {name} {kind}, on the {route}",
                            "ms",
                            value,
                            "nothing else",
                            reference,
                            goal=goal,
                            met=met,
                            load=load,
                        )
                    )
            failed = spread(ours, lambda window: len(window.failures))
            found += [
                Row(
                    f"admin ({server})",
                    f"failed Admin calls {kind}",
                    "calls",
                    failed,
                    goal="0",
                    met=failed.high == 0,
                ),
                Row(
                    f"admin ({server})",
                    f"Admin calls per window {kind}",
                    "calls",
                    spread(ours, Window.calls),
                    "nothing else",
                    spread(theirs, Window.calls),
                ),
                Row(f"admin ({server})", f"window {kind}", "s", spread(ours, lambda w: w.seconds)),
                Row(
                    f"admin ({server})",
                    f"server CPU (serve + workers) {kind}",
                    "s",
                    spread(ours, lambda w: w.server_cpu),
                    "nothing else",
                    spread(theirs, lambda w: w.server_cpu),
                ),
            ]
        found.append(
            Row(
                f"admin ({server})",
                f"swarm clients' CPU ({SWARM_PROCESSES} processes)",
                "s",
                spread(results.swarms, lambda w: w.client_cpu),
            )
        )
        found.append(
            Row(
                f"admin ({server})",
                "streams refused and retried while connecting",
                "streams",
                spread(results.swarms, lambda w: w.refused),
            )
        )
        worked = sum(ok for ok, _ in results.cli)
        said = "; ".join(sorted({text for ok, text in results.cli if not ok}))[:200]
        what = f"`league create` (CLI) while {size:,} bots connect: worked" + (f" ({said})" if said else "")
        found.append(
            Row(
                f"admin ({server})",
                what,
                "runs",
                Spread.of([worked]),
                goal=f"{len(results.cli)} of {len(results.cli)}",
                met=worked == len(results.cli),
            )
        )
    if "before" in measured:  # side by side: this tree's local route against the tree before
        ours, theirs = measured["this tree"], measured["before"]
        routes = [route for route in ROUTES if ours.swarms[0].times_ms[route]]
        for kind, mine, before_windows in (
            (f"while {size:,} bots connect", ours.swarms, theirs.swarms),
            (f"while {UPLOADS} archives arrive", ours.uploads, theirs.uploads),
        ):
            for route in routes:
                value = spread(mine, lambda w, route=route: w.percentile(0.99, route))
                reference = spread(before_windows, lambda w: w.percentile(0.99, "address"))
                found.append(
                    Row(
                        "admin: this tree against before",
                        f"Admin call p99 {kind} (this tree on the {route})",
                        "ms",
                        value,
                        "before, on its address",
                        reference,
                        goal="< 200 ms",
                        met=value.median < 200,
                        load=load,
                    )
                )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="3 runs of each (default 5)")
    parser.add_argument("--runs", type=int, help="runs of each (overrides --quick)")
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--database-url", help="default: SQLite in the server's home")
    parser.add_argument(
        "--before",
        help="a Python whose kingmaker is another tree's (a virtualenv of it): its server runs beside, "
        "its windows alternating with this tree's",
    )
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 5)
    print_rows(rows(runs, args.bots, args.database_url, args.before), "the Admin API under load")
    print(f"load average (1/5/15 min): {'/'.join(f'{value:.1f}' for value in os.getloadavg())}")


if __name__ == "__main__":
    main()
