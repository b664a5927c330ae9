"""Many leagues at once over shared bots, with trouble thrown in; then check that the results hold.

    .venv/bin/python bench/chaos.py [--seed N] [--leagues N] [--kills N] [--database-url URL]

A real `kingmaker serve` process plays several leagues at the same time over one shared pool of
bots: managed and remote innocent random bots (remote ones with random capacities), and managed
faulty bots that crash or cheat and get suspended. Along the way a random innocent bot is disabled
(and enabled again), and the server is killed with SIGKILL and started again. Afterwards:

- every league is finished, or stopped with a stated reason;
- no match is left running;
- every rating's match count equals the rated finished seats of that bot in that game;
- no innocent bot (one that only ever answered legally and on time) has a fault or a suspension.

``run_chaos`` is also the short property test in tests/leagues/test_scheduler_chaos.py.
"""

from __future__ import annotations

import os

# Bots are forked from this process, which also runs gRPC; see kingmaker/server/__init__.py.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

import argparse
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from sqlalchemy import bindparam, create_engine, text

from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.background import ServerProcess
from kingmaker.v1 import admin_pb2, admin_pb2_grpc

TOKEN = "chaos-admin-token"
METADATA = (("authorization", f"Bearer {TOKEN}"),)
GAMES = ("kingdoms", "kings_road", "kingsburg", "kingsville")
BOT_FAULTS = tuple(reason.value for reason in EndReason if reason.is_bot_fault)


@dataclass
class ChaosReport:
    leagues: int = 0
    matches: dict[str, int] = field(default_factory=dict)
    kills: int = 0
    disables: int = 0
    suspended_faulty: int = 0
    innocent_faults: list[str] = field(default_factory=list)
    """Every fault of a bot that never did wrong, as "bot: match N seat S reason"; must be empty."""
    problems: list[str] = field(default_factory=list)
    """Every broken invariant, in a sentence; must be empty."""
    seconds: float = 0.0


@dataclass
class Bots:
    innocent: list[str]
    faulty: list[str]
    remote: dict[str, int]
    """Remote innocent bots and their capacities."""


def run_chaos(
    seed: int = 1,
    leagues: int = 3,
    kills: int = 1,
    workdir: Path | None = None,
    database_url: str | None = None,
) -> ChaosReport:
    """Play ``leagues`` leagues at once with ``kills`` server kills; check and report.
    ``database_url``: an empty (or migrated, empty) database; default, an SQLite file."""
    with _folder(workdir) as folder:
        return _Chaos(random.Random(seed), folder, leagues, kills, database_url).run()


class _Chaos:
    def __init__(
        self, rng: random.Random, folder: Path, leagues: int, kills: int, database_url: str | None
    ) -> None:
        self.rng = rng
        self.folder = folder
        self.league_count = leagues
        self.kills = kills
        self.database = database_url or f"sqlite:///{folder / 'chaos.db'}"
        self.socket = folder / "s.sock"
        self.report = ChaosReport()
        self.tokens: dict[str, str] = {}
        self.remote_processes: dict[str, subprocess.Popen[bytes]] = {}
        self.address = ""

    def run(self) -> ChaosReport:
        started = time.monotonic()
        server = self._start_server()
        try:
            with grpc.insecure_channel(server.address) as channel:
                admin = admin_pb2_grpc.AdminStub(channel)
                bots = self._register(admin)
                names = self._create_leagues(admin, bots)
                self._connect_remote(server, bots)
                for _ in range(self.kills):
                    self._play_until(admin, names, self.rng.randint(3, 8), bots)
                    server.kill()
                    self.report.kills += 1
                    self._stop_remote()
                    server = self._start_server()
                    self._connect_remote(server, bots)
            with grpc.insecure_channel(server.address) as channel:
                admin = admin_pb2_grpc.AdminStub(channel)
                self._play_until(admin, names, None, bots)
        finally:
            server.kill()
            self._stop_remote()
        self._check(bots)
        self.report.seconds = time.monotonic() - started
        return self.report

    def _start_server(self) -> ServerProcess:
        extra = ["--concurrency", "3", "--decision-ms", "3000", "--connect-timeout", "20"]
        return ServerProcess(self.folder / "home", self.socket, self.database, TOKEN, extra)

    def _register(self, admin: admin_pb2_grpc.AdminStub) -> Bots:
        python = sys.executable
        managed = {
            "random-1": [python, "-m", "kingmaker.sample_bots.random_bot"],
            "random-2": [python, "-m", "kingmaker.sample_bots.random_bot"],
            "crasher": [python, "-m", "kingmaker.sample_bots.faulty.crash_bot"],
            "cheater": [python, "-m", "kingmaker.sample_bots.faulty.illegal_bot"],
        }
        for name, command in managed.items():
            admin.AddBot(admin_pb2.AddBotRequest(name=name, games=GAMES, command=command), metadata=METADATA)
        remote = {f"remote-{i}": self.rng.randint(1, 3) for i in range(1, 4)}
        for name in remote:
            added = admin.AddBot(admin_pb2.AddBotRequest(name=name, games=GAMES), metadata=METADATA)
            self.tokens[name] = added.token
        return Bots(innocent=["random-1", "random-2", *remote], faulty=["crasher", "cheater"], remote=remote)

    def _create_leagues(self, admin: admin_pb2_grpc.AdminStub, bots: Bots) -> list[str]:
        names = []
        everyone = bots.innocent + bots.faulty
        for number in range(self.league_count):
            game = self.rng.choice(GAMES)
            entrants = self.rng.sample(everyone, self.rng.randint(3, 4))
            name = f"league-{number}-{game}"
            request = admin_pb2.CreateLeagueRequest(
                name=name, game=game, bots=entrants, seed=self.rng.randrange(2**31), players=2
            )
            admin.CreateLeague(request, metadata=METADATA)
            names.append(name)
        self.report.leagues = len(names)
        return names

    def _connect_remote(self, server: ServerProcess, bots: Bots) -> None:
        self.address = server.address
        for name in bots.remote:
            self._connect(name, bots.remote[name])

    def _connect(self, name: str, capacity: int) -> None:
        argv = [
            sys.executable, "-m", "kingmaker.sample_bots.remote_random_bot", "--server", self.address,
            "--token", self.tokens[name], "--capacity", str(capacity),
        ]  # fmt: skip
        self.remote_processes[name] = subprocess.Popen(argv, stderr=subprocess.DEVNULL)

    def _stop_remote(self) -> None:
        for process in self.remote_processes.values():
            process.terminate()
        for process in self.remote_processes.values():
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.remote_processes.clear()

    def _play_until(
        self,
        admin: admin_pb2_grpc.AdminStub,
        names: list[str],
        enough: int | None,
        bots: Bots,
    ) -> None:
        """Follow every league's run (one thread each) until all are done or ``enough`` matches
        are finished in all; meanwhile disable one innocent bot for a moment."""
        finished: dict[str, int] = dict.fromkeys(names, 0)
        done: set[str] = set()
        stop = threading.Event()

        def follow(name: str) -> None:
            try:
                stream = admin.RunLeague(admin_pb2.RunLeagueRequest(name=name), metadata=METADATA)
                for progress in stream:
                    finished[name] = progress.finished
                    if progress.done:
                        done.add(name)
                        return
                    if stop.is_set():
                        stream.cancel()
                        return
            except grpc.RpcError:
                return  # the server was killed under us; the league resumes with the next one

        threads = [threading.Thread(target=follow, args=(name,), daemon=True) for name in names]
        for thread in threads:
            thread.start()
        disabled = False
        deadline = time.monotonic() + 600
        while len(done) < len(names) and time.monotonic() < deadline:
            total = sum(finished.values())
            if enough is not None and total >= enough:
                break
            if not disabled and total >= 2:
                disabled = True
                victim = self.rng.choice(bots.innocent)
                self._set_enabled(admin, victim, False)
                time.sleep(0.3)
                self._set_enabled(admin, victim, True)
                if victim in bots.remote:  # its author would start it again
                    self.remote_processes.pop(victim).wait(10)
                    self._connect(victim, bots.remote[victim])
                self.report.disables += 1
            time.sleep(0.1)
        stop.set()
        for thread in threads:
            thread.join(timeout=5)

    def _set_enabled(self, admin: admin_pb2_grpc.AdminStub, name: str, enabled: bool) -> None:
        admin.SetBotEnabled(admin_pb2.SetBotEnabledRequest(name=name, enabled=enabled), metadata=METADATA)

    def _check(self, bots: Bots) -> None:
        engine = create_engine(self.database)
        with engine.connect() as connection:

            def rows(query: str, **values: object) -> list[tuple[object, ...]]:
                statement = text(query)
                if any(isinstance(value, list) for value in values.values()):
                    statement = statement.bindparams(
                        *(bindparam(k, expanding=True) for k, v in values.items() if isinstance(v, list))
                    )
                return [tuple(row) for row in connection.execute(statement, values)]

            report = self.report
            report.matches = dict(rows("SELECT status, count(*) FROM match GROUP BY status"))  # type: ignore[arg-type]
            if report.matches.get("running"):
                report.problems.append(f"{report.matches['running']} matches left running")
            for name, finished, reason in rows("SELECT name, finished, status_reason FROM league"):
                if not finished and not reason:
                    report.problems.append(f"league {name} neither finished nor stopped with a reason")
                if not finished:
                    report.problems.append(f"league {name} did not finish: {reason}")
            counted = rows(
                "SELECT r.bot_id, r.game, r.matches, ("
                " SELECT count(*) FROM matchseat s JOIN match m ON m.id = s.match_id"
                " WHERE s.bot_id = r.bot_id AND m.game = r.game AND m.status = 'finished' AND m.rated"
                ") FROM rating r"
            )
            for bot_id, game, matches, seats in counted:
                if matches != seats:
                    report.problems.append(
                        f"bot {bot_id} in {game}: rating counts {matches}, seats say {seats}"
                    )
            faults = rows(
                "SELECT b.name, s.match_id, s.seat, s.end_reason, s.detail FROM matchseat s"
                " JOIN bot b ON b.id = s.bot_id JOIN match m ON m.id = s.match_id"
                " WHERE b.name IN :innocent AND m.status = 'finished'",
                innocent=list(bots.innocent),
            )
            report.innocent_faults = [
                f"{name}: match {match} seat {seat} {reason} ({detail})"
                for name, match, seat, reason, detail in faults
                if reason in BOT_FAULTS
            ]
            suspended = dict(rows("SELECT name, suspended_reason FROM bot"))
            report.innocent_faults += [
                f"{name} suspended: {suspended[name]}" for name in bots.innocent if suspended[name]
            ]
            report.suspended_faulty = sum(1 for name in bots.faulty if suspended[name])
        engine.dispose()


@contextmanager
def _folder(workdir: Path | None) -> Iterator[Path]:
    if workdir is not None:
        yield workdir
        return
    # Short: the server's Unix socket path must stay under ~108 bytes.
    with tempfile.TemporaryDirectory(prefix="km-chaos-") as name:
        yield Path(name)


def rows(quick: bool) -> list:  # type: ignore[type-arg]
    """The suite's section: one chaos run per seed; innocent faults and problems must be 0."""
    from table import Row, Spread

    seeds = [1, 2] if quick else [1, 2, 3, 4, 5]
    reports = [run_chaos(seed, leagues=3 if quick else 8, kills=1 if quick else 2) for seed in seeds]
    total = len(reports)
    return [
        Row("chaos", f"leagues at once ({total} runs)", "leagues", Spread.of([r.leagues for r in reports])),
        Row(
            "chaos",
            "matches finished per run",
            "matches",
            Spread.of([r.matches.get("finished", 0) for r in reports]),
        ),
        Row("chaos", "server SIGKILLs per run", "kills", Spread.of([r.kills for r in reports])),
        Row(
            "chaos",
            "faults of innocent bots",
            "faults",
            Spread.of([len(r.innocent_faults) for r in reports]),
            goal="0",
            met=all(not r.innocent_faults for r in reports),
        ),
        Row(
            "chaos",
            "broken invariants",
            "problems",
            Spread.of([len(r.problems) for r in reports]),
            goal="0",
            met=all(not r.problems for r in reports),
        ),
        Row(
            "chaos", "faulty bots suspended (of 2)", "bots", Spread.of([r.suspended_faulty for r in reports])
        ),
        Row("chaos", "seconds per run", "s", Spread.of([r.seconds for r in reports])),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--leagues", type=int, default=8)
    parser.add_argument("--kills", type=int, default=2)
    parser.add_argument("--database-url", help="an empty database (default: an SQLite file)")
    args = parser.parse_args()
    report = run_chaos(args.seed, args.leagues, args.kills, database_url=args.database_url)
    print(report)
    sys.exit(1 if report.innocent_faults or report.problems else 0)


if __name__ == "__main__":
    main()
