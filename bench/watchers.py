"""Spectators against the ladder: a real ``kingmaker serve --web`` plays a Kingdoms ladder of SDK
random bots (8 bots, 4 matches at once, the default executor) without end, while a separate
process keeps 0, 50 or 200 live-stream watchers (``/api/matches/ID/live``) on its running
matches, each watcher opening a new stream on another running match as soon as its match ends
(never again on one whose stream ended: the list of running matches it reads lags the ladder,
and a watcher that opened the same finished match again and again would cost more the faster
the server says it is over), or 200 followers of the league (``/api/leagues/watched/live``,
league TV: one stream each, which moves from match to match by itself).
Windows of each count take turns, several rounds; the ladder's matches per minute in each
window (its finishes, as the league's progress stream reports them), and the CPU per match of
the server process, of its worker processes (which build the frames of watched matches) and of
the watchers' own process (on the same cores: part of what the crowd costs the ladder is the
crowd itself), beside the same with nobody watching, medians (min-max) over the rounds.

    .venv/bin/python bench/web.py --watchers [--quick]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

import grpc
from proc_stats import cpu_seconds, free_port
from table import Row, Spread

from kingmaker.server.background import ServerProcess
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

SDK_RANDOM = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]
TOKEN = "bench"
METADATA = (("authorization", f"Bearer {TOKEN}"),)
BOTS, AT_ONCE = 8, 4


class Crowd(NamedTuple):
    watchers: int
    keep_alive: bool
    """Each watcher opens its next stream on the connection its last one used, as a browser
    does; else on a new connection, which it closes when the stream ends."""
    league: bool = False
    """Each follows the league (``/api/leagues/watched/live``: the match it shows, then the
    next) on one stream on one connection, instead of a stream per match."""

    def text(self) -> str:
        if self.league:
            return f"{self.watchers} followers of the league (one stream each)"
        how = "a connection kept" if self.keep_alive else "a connection per stream"
        return f"{self.watchers} live-stream watchers ({how})"


NOBODY = Crowd(0, False)
CROWDS = (NOBODY, Crowd(50, False), Crowd(200, False), Crowd(200, True), Crowd(200, True, league=True))

WATCHERS = r"""
import asyncio, sqlite3, sys
database, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
running = []

async def poll():
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    while True:
        running[:] = [row[0] for row in connection.execute("SELECT id FROM match WHERE status = 'running'")]
        await asyncio.sleep(0.2)

async def response(reader):  # one chunked response to its end; the connection stays open
    while (await reader.readline()) not in (b"\r\n", b""):
        pass  # the status line and headers
    while True:
        size = int((await reader.readline()).split(b";")[0], 16)
        await reader.readexactly(size + 2)
        if size == 0:
            return


async def watcher(number, keep_alive):
    ended = set()  # the matches whose stream ended: over, though the list may still say running
    connection = []  # the kept connection's (reader, writer), if there is one
    try:
        while True:
            choices = [match_id for match_id in running if match_id not in ended]
            if not choices:
                await asyncio.sleep(0.05)
                continue
            match_id = choices[number % len(choices)]
            if len(ended) > 100:
                ended &= set(running)
            try:
                await stream(match_id, keep_alive, connection)
            except (OSError, ValueError, asyncio.IncompleteReadError):
                while connection:
                    connection.pop()[1].close()
                await asyncio.sleep(0.1)
            ended.add(match_id)
            await asyncio.sleep(0.05)  # its match is over: on to the next running one
    finally:  # cancelled: the crowd changed
        while connection:
            connection.pop()[1].close()


async def follower():  # the league's stream, on one connection, for as long as it lasts
    while True:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            try:
                writer.write(b"GET /api/leagues/watched/live HTTP/1.1\r\nHost: bench\r\n\r\n")
                while await reader.read(1 << 16):
                    pass
            finally:
                writer.close()
        except OSError:
            pass
        await asyncio.sleep(0.1)


async def stream(match_id, keep_alive, connection):
    if not connection:
        connection.append(await asyncio.open_connection(host, port))
    reader, writer = connection[0]
    if keep_alive:  # as a browser does: the next stream goes on the same connection
        writer.write(f"GET /api/matches/{match_id}/live HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        await response(reader)
        return
    request = f"GET /api/matches/{match_id}/live HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n"
    writer.write(request.encode())
    while await reader.read(1 << 16):
        pass
    connection.clear()
    writer.close()


async def main():
    asyncio.get_running_loop().create_task(poll())
    tasks = []
    reader = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        wanted, keep_alive, league = (int(word) for word in line.split())
        while tasks:
            tasks.pop().cancel()
        while len(tasks) < wanted:
            tasks.append(loop.create_task(follower() if league else watcher(len(tasks), keep_alive)))
        print("ok", flush=True)

asyncio.run(main())
"""


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, ValueError):
                pass  # gone meanwhile
    return found


class Cpu(NamedTuple):
    """CPU seconds so far of the server, its worker processes and the watchers' process."""

    server: float
    workers: float
    watchers: float

    def __sub__(self, other: object) -> Cpu:
        assert isinstance(other, Cpu)
        return Cpu(*(mine - theirs for mine, theirs in zip(self, other, strict=True)))


class Window(NamedTuple):
    rate: float
    """Matches finished a minute."""
    cost: Cpu
    """CPU ms per match."""
    finished: int
    seconds: float


class WatchedLadder:
    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="km-watchers-"))
        database = self.folder / "ladder.db"
        self.port = free_port()
        extra = ["--web", str(self.port)]
        self.server = ServerProcess(self.folder / "home", self.folder / "server.sock", database, TOKEN, extra)
        threading.Thread(target=self._drain, daemon=True).start()
        self.channel = grpc.insecure_channel(self.server.address)
        admin = admin_pb2_grpc.AdminStub(self.channel)
        names = [f"random-{number}" for number in range(BOTS)]
        for name in names:
            admin.AddBot(
                admin_pb2.AddBotRequest(name=name, games=["kingdoms"], command=SDK_RANDOM), metadata=METADATA
            )
        create = admin_pb2.CreateLeagueRequest(
            name="watched", game="kingdoms", format="ladder", bots=names, seed=1
        )
        admin.CreateLeague(create, metadata=METADATA)
        self.finishes: list[float] = []
        self.workers: list[int] = []
        self.progress = admin.RunLeague(
            admin_pb2.RunLeagueRequest(name="watched", concurrency=AT_ONCE), metadata=METADATA
        )
        threading.Thread(target=self._follow, daemon=True).start()
        self.watchers = subprocess.Popen(
            [sys.executable, "-c", WATCHERS, str(database), "127.0.0.1", str(self.port)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    def _drain(self) -> None:
        assert self.server.process.stdout is not None
        for _ in self.server.process.stdout:
            pass

    def _follow(self) -> None:
        try:
            for progress in self.progress:
                if progress.HasField("last"):
                    self.finishes.append(time.monotonic())
        except grpc.RpcError:
            pass  # cancelled at the end

    def crowd(self, crowd: Crowd) -> None:
        assert self.watchers.stdin is not None and self.watchers.stdout is not None
        self.watchers.stdin.write(f"{crowd.watchers} {int(crowd.keep_alive)} {int(crowd.league)}\n")
        self.watchers.stdin.flush()
        assert self.watchers.stdout.readline().strip() == "ok"

    def cpu(self) -> Cpu:
        workers = self.workers or _children(self.server.process.pid)
        self.workers = workers  # the worker processes live as long as the server
        return Cpu(
            cpu_seconds(self.server.process.pid),
            sum(cpu_seconds(pid) for pid in workers),
            cpu_seconds(self.watchers.pid),
        )

    def window(self, crowd: Crowd, seconds: float, settle: float) -> Window:
        """The ladder over ``seconds`` with ``crowd``."""
        self.crowd(crowd)
        time.sleep(settle)
        started, cpu = time.monotonic(), self.cpu()
        time.sleep(seconds)
        ended, used = time.monotonic(), self.cpu() - cpu
        finished = sum(started <= at < ended for at in self.finishes)
        per_match = Cpu(*(1000 * part / max(finished, 1) for part in used))
        return Window(60 * finished / (ended - started), per_match, finished, ended - started)

    def close(self) -> None:
        self.watchers.kill()
        self.watchers.wait(10)
        self.progress.cancel()
        self.channel.close()
        self.server.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def rows(quick: bool) -> list[Row]:
    rounds, seconds, settle = (3, 10.0, 3.0) if quick else (5, 20.0, 4.0)
    ladder = WatchedLadder()
    windows: dict[Crowd, list[Window]] = {crowd: [] for crowd in CROWDS}
    loads: list[float] = []
    try:
        ladder.window(NOBODY, seconds, settle)  # warm-up: every bot process started
        for round_ in range(rounds):
            loads.append(os.getloadavg()[0])
            order = CROWDS if round_ % 2 == 0 else tuple(reversed(CROWDS))
            for crowd in order:
                windows[crowd].append(ladder.window(crowd, seconds, settle))
    finally:
        ladder.close()
    load = Spread.of(loads)
    rates = {crowd: [window.rate for window in found] for crowd, found in windows.items()}
    bare = Spread.of(rates[NOBODY])
    what = f"Kingdoms ladder, {BOTS} SDK random bots, {AT_ONCE} at once, default serve --web"
    found = []
    for crowd in CROWDS[1:]:
        rate = Spread.of(rates[crowd])
        found.append(Row("watchers", f"{what}, {crowd.text()}", "matches/min", rate,
                         "nobody watching", bare, goal="≥ 0.9 of nobody watching",
                         met=rate.median >= 0.9 * bare.median, load=load))  # fmt: skip
        whole, whole_bare = _whole_run(windows[crowd]), _whole_run(windows[NOBODY])
        found.append(Row("watchers", f"the same, all windows of {crowd.text()} as one run", "matches/min",
                         Spread.of([whole]), "all windows of nobody watching", Spread.of([whole_bare]),
                         goal="≥ 0.9 of nobody watching", met=whole >= 0.9 * whole_bare,
                         load=load))  # fmt: skip
        for part, who in enumerate(("server process", "worker processes", "watchers' own process")):
            cost = Spread.of([window.cost[part] for window in windows[crowd]])
            bare_cost = Spread.of([window.cost[part] for window in windows[NOBODY]])
            found.append(Row("watchers", f"{who} CPU per match, {crowd.text()}", "ms", cost,
                             "nobody watching", bare_cost, load=load))  # fmt: skip
    assert statistics.median(rates[NOBODY]) > 0, "the ladder played nothing"
    return found


def _whole_run(windows: list[Window]) -> float:
    """Matches a minute over all of a crowd's windows together: their finishes over their time."""
    return 60 * sum(window.finished for window in windows) / sum(window.seconds for window in windows)
