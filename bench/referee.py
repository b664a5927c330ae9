"""The referee against the bare transport: decisions per second with bots that cost nothing.

Reference: a bare grpc.aio server that plays "matches" of the same shape as the referee's, over
the same kind of connection (a Unix socket: managed bots reach the server through one, the only
way out of the jail; in this gRPC it is about 10% slower than TCP loopback). Each match
alternates between its two client processes, sending a request of a Kingdoms request's size
(1,600 B) and waiting for a 14 B reply, with nothing else to do. Measured: the kingmaker server
refereeing real matches (engine, encoding, checks, logs, database) between instant bots
(`sample_bots/instant_bot.py`: legal action 0 at once, no SDK), managed bot processes kept warm
between matches: a real ``kingmaker serve`` child process (the jail, the default executor: worker
processes, one per core) playing one league of 2 x N bots at N matches at once, as a user runs it,
beside the same with ``--executor local``. Both at 1 and at 8 matches at once, alternating.

Both are measured in steady state, each with one clock. The transport's starts once its clients
have connected. The referee's is one combined rate over every match of the run
(``rates.combined_rate``): the decisions of the matches after the first over the span from the
first finish to the last, read from the database the server wrote (its ``finished_at``), so that
neither counts starting processes or setting up a league, which a real league pays once, not per
match. (Before issue 35 the bench added up a rate per league, each over its own span: leagues out
of step made that sum up to 9x the server's rate.)

Beside each served row, the bot processes the server started per league (counted by watching its
process tree: the topmost process of each bot, its jail or itself), after a warm-up league of the
same bots: a server that keeps its bots between leagues starts few or none, one that stops them
at each league's end starts them all again, more than once where a bot plays several matches at
once or in several worker processes.

The live boards' rows are in ``referee_live.py``.

    .venv/bin/python bench/referee.py [--quick]              # every row
    .venv/bin/python bench/referee.py --transport [GAME ...]  # the rows beside the transport only
    .venv/bin/python bench/referee.py --live                  # the live hub's rows only
    .venv/bin/python bench/referee.py --split [--quick]       # CPU per decision, process by process
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import grpc
from rates import combined_rate
from sqlmodel import select
from table import Row, Spread, alternate_with_load

from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.storage.db import Database, open_database
from kingmaker.ladder.storage.models import League, Match
from kingmaker.server.background import ServerProcess
from kingmaker.server.execution.executors import usable_cores
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

REQUEST_BYTES = 1600
REPLY_BYTES = 14
METHOD = "/bench.PingPong/Play"
INSTANT = [sys.executable, "-m", "kingmaker.sample_bots.instant_bot"]
SDK_RANDOM = [sys.executable, "-m", "kingmaker.sample_bots.random_bot"]
GOAL_GAMES = ("kingdoms", "kingsburg")
WORKERS = usable_cores()
"""Worker processes `serve` starts by default: one per core."""
TOKEN = "bench"
METADATA = (("authorization", f"Bearer {TOKEN}"),)

CLIENT_EXIT_S = 60
"""How long the ping-pong's clients may take to exit once their matches are over (a loaded machine)."""

CLIENT = """
import sys, grpc, queue
outgoing = queue.SimpleQueue()
outgoing.put(b"hello")
def messages():
    while (item := outgoing.get()) is not None:
        yield item
reply = b"r" * int(sys.argv[2])
with grpc.insecure_channel(sys.argv[1]) as channel:
    play = channel.stream_stream(sys.argv[3], request_serializer=None, response_deserializer=None)
    try:
        for _ in play(messages()):
            outgoing.put(reply)
    except grpc.RpcError:
        pass
    outgoing.put(None)
"""


class PingPongServer:
    """The bare transport: matches of alternating request/reply, no game, no checks."""

    def __init__(self) -> None:
        self.cpu_per_round_trip = 0.0
        self.loop = asyncio.new_event_loop()
        self.streams: asyncio.Queue[tuple[asyncio.Queue[bytes], asyncio.Queue[bytes]]] | None = None
        self.folder = tempfile.mkdtemp(prefix="km-pingpong-")
        self.address = f"unix:{Path(self.folder) / 'pingpong.sock'}"
        self.loop.run_until_complete(self._start())

    async def _start(self) -> None:
        self.streams = asyncio.Queue()
        handler = grpc.stream_stream_rpc_method_handler(self._play)
        generic = grpc.method_handlers_generic_handler("bench.PingPong", {"Play": handler})
        self.server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
        self.server.add_generic_rpc_handlers((generic,))
        self.server.add_insecure_port(self.address)
        await self.server.start()

    async def _play(self, requests, context):  # type: ignore[no-untyped-def]
        inbox: asyncio.Queue[bytes] = asyncio.Queue()
        outbox: asyncio.Queue[bytes] = asyncio.Queue()
        assert self.streams is not None
        await self.streams.put((inbox, outbox))

        async def read() -> None:
            async for message in requests:
                await inbox.put(message)

        reader = asyncio.ensure_future(read())
        try:
            while (message := await outbox.get()) != b"":
                yield message
        finally:
            reader.cancel()

    def run(self, matches: int, decisions_per_match: int) -> float:
        """Round trips per second over ``matches`` concurrent matches of two clients each."""
        clients = [
            subprocess.Popen([sys.executable, "-c", CLIENT, self.address, str(REPLY_BYTES), METHOD])
            for _ in range(2 * matches)
        ]
        try:
            rate = self.loop.run_until_complete(self._matches(matches, decisions_per_match))
        except BaseException:
            for client in clients:
                client.kill()
            raise
        finally:
            # Waited for with the loop running: a stream is closed by its handler, which may still
            # be awaiting its last request's send when the matches end (its completion comes
            # through the loop, late on a loaded machine); a stopped loop left the clients
            # waiting for the stream's end until `client.wait` gave up.
            self.loop.run_until_complete(_exited(clients, CLIENT_EXIT_S))
        return rate

    async def _matches(self, matches: int, decisions: int) -> float:
        assert self.streams is not None
        pairs = []
        for _ in range(matches):
            seats = [await self.streams.get(), await self.streams.get()]
            for inbox, _ in seats:
                await inbox.get()  # the hello
            pairs.append(seats)
        request = b"q" * REQUEST_BYTES

        async def match(seats: list[tuple[asyncio.Queue[bytes], asyncio.Queue[bytes]]]) -> None:
            for turn in range(decisions):
                inbox, outbox = seats[turn % 2]
                await outbox.put(request)
                await inbox.get()

        started, cpu_started = time.perf_counter(), time.process_time()
        await asyncio.gather(*(match(seats) for seats in pairs))
        elapsed = time.perf_counter() - started
        # This process's CPU per round trip while the matches play (bench/decisions.py reads it).
        self.cpu_per_round_trip = (time.process_time() - cpu_started) / (matches * decisions)
        for seats in pairs:
            for _, outbox in seats:
                await outbox.put(b"")
        return matches * decisions / elapsed

    def close(self) -> None:
        self.loop.run_until_complete(self.server.stop(0))
        self.loop.close()
        shutil.rmtree(self.folder, ignore_errors=True)


async def _exited(clients: list[subprocess.Popen[bytes]], within_s: float) -> None:
    """Wait for every client to exit, each in a thread, so that the loop runs meanwhile."""
    await asyncio.gather(*(asyncio.to_thread(client.wait, within_s) for client in clients))


class Launches:
    """The bot processes started under a process tree from now on, counted by polling /proc
    (every ``every`` s; a bot process lives at least a match): the topmost process of each bot
    whose command line holds ``marker`` (its jail, or the bot where there is none), not counting
    those running already."""

    def __init__(self, root: int, marker: bytes, every: float = 0.05) -> None:
        self.root, self.marker, self.every = root, marker, every
        self.running = set(self._bots(root))
        """The bots' processes there before: kept from an earlier league."""
        self.seen: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def count(self) -> int:
        return len(self.seen - self.running)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._stop.wait(self.every):
            self.seen |= set(self._bots(self.root))

    def _bots(self, pid: int) -> list[int]:
        found = []
        for child in _children(pid):
            if self.marker in _command_line(child):
                found.append(child)
            else:
                found += self._bots(child)
        return found


def _children(pid: int) -> list[int]:
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:  # it has exited meanwhile
        return []
    found = []
    for task in tasks:
        with contextlib.suppress(OSError):  # a thread that has ended meanwhile
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


class ServedReferee:
    """A ``kingmaker serve`` child process (its own options: the jail and the default executor
    unless told) with 2 x ``concurrency`` managed bots, playing one league of them at
    ``concurrency`` matches at once per run; ``launches``: the bot processes it started in each
    run after the warm-up."""

    def __init__(
        self, game: str, concurrency: int, command: list[str], extra: list[str], url: str | None = None
    ) -> None:
        """``url``: an empty database (migrated or not) for the server; by default an SQLite file."""
        self.folder = Path(tempfile.mkdtemp(prefix="km-served-"))
        self.url = url or f"sqlite:///{self.folder / 'bench.db'}"
        home = self.folder / "home"
        self.server = ServerProcess(home, self.folder / "server.sock", self.url, TOKEN, extra)
        self.launches: list[int] = []
        # Its output is read all along: a pipe nobody reads would stop the server once full.
        threading.Thread(target=self._drain, daemon=True).start()
        try:
            self._prepare(game, concurrency, command)
        except BaseException:
            self.close()  # never leave a server behind
            raise

    def _prepare(self, game: str, concurrency: int, command: list[str]) -> None:
        self.channel = grpc.insecure_channel(self.server.address)
        self.admin = admin_pb2_grpc.AdminStub(self.channel)
        self.db: Database = open_database(self.url, upgrade=False)
        self.game = game
        self.concurrency = concurrency
        self.runs = 0
        self.names = [f"bot-{i}" for i in range(2 * concurrency)]
        for name in self.names:
            self.admin.AddBot(
                admin_pb2.AddBotRequest(name=name, games=[game], command=command), metadata=METADATA
            )
        self.play(matches=2)  # warm-up: every bot process started once
        self.launches.clear()

    def _drain(self) -> None:
        assert self.server.process.stdout is not None
        for _ in self.server.process.stdout:
            pass

    def play(self, matches: int) -> float:
        """Decisions per second of one league run of at least ``matches`` matches (whole rounds
        of the round robin): one combined rate over all of them."""
        pairs = len(self.names) * (len(self.names) - 1) // 2
        rounds = max(1, -(-matches // pairs))
        self.runs += 1
        name = f"run-{self.runs}"
        create = admin_pb2.CreateLeagueRequest(
            name=name, game=self.game, bots=self.names, rounds=rounds, seed=self.runs
        )
        self.admin.CreateLeague(create, metadata=METADATA)
        run = admin_pb2.RunLeagueRequest(name=name, concurrency=self.concurrency)
        launches = Launches(self.server.process.pid, b"sample_bots")
        try:
            for progress in self.admin.RunLeague(run, metadata=METADATA):
                if progress.done:
                    assert progress.reason == "finished", progress.reason
        finally:
            launches.close()
        self.launches.append(launches.count())
        return combined_rate(self._finishes(name))

    def _finishes(self, league: str) -> list[tuple[float, int]]:
        """(finish time, decisions) of every finished match of ``league``, as the server wrote them."""
        with self.db.read() as session:
            league_id = session.exec(select(League.id).where(League.name == league)).one()
            rows = session.exec(
                select(Match.id, Match.finished_at).where(
                    Match.league_id == league_id, Match.status == "finished"
                )
            ).all()
        return [
            (finished.timestamp(), len(match_log(self.db, match_id).actions))
            for match_id, finished in rows
            if match_id is not None and finished is not None
        ]

    def close(self) -> None:
        if hasattr(self, "channel"):
            self.channel.close()
        if hasattr(self, "db"):
            self.db.close()
        self.server.process.terminate()
        try:
            self.server.process.wait(30)
        except subprocess.TimeoutExpired:
            self.server.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def rows(quick: bool) -> list[Row]:
    from referee_live import live_rows

    found = live_rows(quick)
    return found + transport_rows(quick)


def transport_rows(quick: bool, games: list[str] | None = None) -> list[Row]:
    """The referee as `serve` runs it, each row beside the bare transport measured in turn."""
    runs = 3
    matches = 24 if quick else 100  # at 8 at once, a round of 16 bots is 120 matches anyway
    games = games or (
        ["kingdoms", "kingsburg"] if quick else ["kingdoms", "kingsburg", "kings_road", "kingsville"]
    )
    transport = PingPongServer()
    found: list[Row] = []
    try:
        for concurrency in (1, 8):
            line_up = [
                (game, f"instant bots, default serve ({WORKERS} worker processes)", INSTANT, [])
                for game in games
            ]
            line_up += [
                (game, "instant bots, serve --executor local", INSTANT, ["--executor", "local"])
                for game in games[:1]
            ]
            # The SDK's random bot beside the instant one: what a Python bot author's bot costs.
            line_up += [("kingdoms", "SDK random bots, default serve", SDK_RANDOM, [])]
            for game, kind, command, extra in line_up:
                referee = ServedReferee(game, concurrency, command, extra)
                try:
                    ours, theirs, load = alternate_with_load(
                        functools.partial(referee.play, matches),
                        functools.partial(transport.run, concurrency, 200),
                        runs,
                    )
                finally:
                    referee.close()
                goal = command is INSTANT and not extra and game in GOAL_GAMES and concurrency > 1
                at_once = f"{concurrency} match{'es' if concurrency > 1 else ''} at once"
                what = f"{game}, {kind}, one league of {2 * concurrency} bots, {at_once}"
                found.append(
                    Row(
                        "referee",
                        what,
                        "decisions/s",
                        ours,
                        reference="bare gRPC ping-pong, same sizes, Unix socket",
                        reference_value=theirs,
                        goal="≥ 0.9 of the transport" if goal else "",
                        met=ours.median >= 0.9 * theirs.median if goal else None,
                        load=load,
                    )
                )
                bots_ = f"{2 * concurrency} bots"
                found.append(
                    Row(
                        "referee",
                        f"{what}: bot processes started per league, after a warm-up league",
                        "processes",
                        Spread.of(referee.launches),
                        reference=bots_ if extra else f"{bots_} x {WORKERS} worker processes",
                        load=load,
                    )
                )
    finally:
        transport.close()
    return found


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """The bench's options; a word it does not know is refused (it once ran the whole bench for
    ``--help``, which it ignored)."""
    parser = argparse.ArgumentParser(
        prog="bench/referee.py", description=__doc__.split("\n\n")[0] if __doc__ else None
    )
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--live", action="store_true", help="the live hub's rows only")
    which.add_argument("--split", action="store_true", help="CPU per decision, process by process")
    which.add_argument("--transport", action="store_true", help="the rows beside the transport only")
    parser.add_argument("games", nargs="*", help="with --transport: only these games' rows")
    arguments = parser.parse_args(argv)
    if arguments.games and not arguments.transport:
        parser.error("games are chosen only with --transport")
    return arguments


if __name__ == "__main__":
    from table import print_rows

    arguments = parse_arguments(sys.argv[1:])
    quick = arguments.quick
    if arguments.live:
        from referee_live import live_rows

        measured = live_rows(quick)
    elif arguments.split:
        from referee_split import split_rows

        measured = split_rows(quick)
    elif arguments.transport:
        measured = transport_rows(quick, arguments.games or None)
    else:
        measured = rows(quick)
    print_rows(measured, "referee against the transport")
