"""What the referee itself spends on a decision: the CPU time of the process that referees.

Row 1, a worker process as `serve` runs it (``process_worker``: its gRPC server, sessions, the
referee, the codec, the fair clock), refereeing Kingdoms between instant bots
(``sample_bots/instant_bot.py``, in the jail where this machine has one) kept warm, 8 matches at
once: the CPU time of that one process (every thread of it, read with its CPU clock) per decision,
over whole runs of matches. Reference: the bare transport's server (``referee.PingPongServer``: a
grpc.aio server in this process, the same message sizes, two client processes per match, 8 matches
at once), its CPU time per round trip while its matches play. The bots and clients are not counted
on either side.

Row 2, the referee with no transport at all: ``Referee.run`` in this process with bots that live in
its event loop (each request serialized and its reply parsed, as gRPC would; a CPU clock and a
stderr size read per request as for a managed bot), 8 matches at once. Reference: the engine
alone playing the same matches (legal actions, then action 0 applied), so the row shows what the
referee costs beyond the rules.

Lower is better; each pair alternates, at least 3 runs, median (min-max), the load beside it.

    .venv/bin/python bench/decisions.py [--quick]
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import functools
import os
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from referee import PingPongServer
from table import Row, alternate_with_load

from kingmaker.games.registry import get_game
from kingmaker.server.execution.executors import LocalExecutor
from kingmaker.server.execution.match_host import HostSettings
from kingmaker.server.execution.process_executor import ProcessExecutor
from kingmaker.server.jail.bot_cpu import ProcessTreeClock
from kingmaker.server.jail.sandbox import bubblewrap
from kingmaker.server.refereeing.referee import Referee, SeatState
from kingmaker.server.seats.deadlines import SeatClock, TimeControl
from kingmaker.server.seats.roster import Entrant, Roster
from kingmaker.server.seats.sessions import BotSession, Identity, SessionPool
from kingmaker.v1 import arena_pb2

GAME = "kingdoms"
AT_ONCE = 8
INSTANT = (sys.executable, "-m", "kingmaker.sample_bots.instant_bot")


def process_cpu_seconds(pid: int) -> float:
    """The CPU time of every thread of process ``pid`` so far (its kernel CPU clock)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    clock = ctypes.c_int()
    if libc.clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        raise OSError(ctypes.get_errno(), f"no CPU clock for process {pid}")
    return time.clock_gettime(clock.value)


class SteadyPingPong(PingPongServer):
    """The bare transport, its own CPU time per round trip counted only while its matches play
    (not while its clients start and say hello)."""

    def cpu_us(self, matches: int, decisions: int) -> float:
        self.run(matches, decisions)
        return self.cpu_per_round_trip * 1e6


class WorkerBench:
    """One worker process of `serve` (through ``ProcessExecutor``, as the server drives it),
    refereeing matches of warm instant bots in pairs, ``at_once`` at a time."""

    def __init__(self, at_once: int = AT_ONCE) -> None:
        self.at_once = at_once
        self.loop = asyncio.new_event_loop()
        jail = bubblewrap().usable
        settings = HostSettings(jail=jail, allow_unjailed=not jail)
        self.executor = ProcessExecutor(1, settings, LocalExecutor(Roster(SessionPool(), "unused")))
        self.loop.run_until_complete(self.executor.start())
        self.pid = self.executor.pids()[0]
        self.bots = [Entrant(f"bot-{i}", bot_id=i + 1, command=INSTANT) for i in range(2 * at_once)]
        self.played = 0
        try:
            self.cpu_us(1)  # warm-up: every bot process started once
        except BaseException:
            self.close()  # the worker and its bots stopped even when the warm-up fails
            raise

    def cpu_us(self, rounds: int) -> float:
        """CPU µs of the worker per decision over ``rounds`` matches of each pair."""
        before = process_cpu_seconds(self.pid)
        decisions = self.loop.run_until_complete(self._play(rounds))
        return (process_cpu_seconds(self.pid) - before) / decisions * 1e6

    async def _play(self, rounds: int) -> int:
        async def pair(index: int) -> int:
            decisions = 0
            for _ in range(rounds):
                self.played += 1
                seats = self.bots[2 * index : 2 * index + 2]
                match_id = f"m{self.played}"
                report = await self.executor.play(GAME, seats, self.played, {}, TimeControl(), match_id)
                assert all(seat.end_reason.name == "FINISHED" for seat in report.seats), report.seats
                # A worker's report leaves its decisions to the packed log (``report_log.as_sent``);
                # each seat's think times are its answered requests, one a decision in Kingdoms.
                decisions += sum(len(times) for times in report.think_ms)
            return decisions

        return sum(await asyncio.gather(*(pair(index) for index in range(self.at_once))))

    def close(self) -> None:
        self.loop.run_until_complete(self.executor.close())
        self.loop.close()


async def _in_loop_bot(session: BotSession) -> None:
    """A bot in the referee's own loop: what the stream would send is serialized (gRPC's work on
    the server), each request answered with legal action 0, the reply parsed from bytes as the
    stream pump receives it."""
    while (message := await session.outbox.get()) is not None:
        message.SerializeToString()
        if message.WhichOneof("message") == "action_request":
            request = message.action_request
            reply = arena_pb2.ActionReply(
                match_id=request.match_id, request_id=request.request_id, legal_action_index=0
            )
            wire = arena_pb2.BotMessage(reply=reply).SerializeToString()
            session.on_message(arena_pb2.BotMessage.FromString(wire))


class InLoopBench:
    """``Referee.run`` with in-loop bots, against the engine alone on the same matches."""

    def __init__(self) -> None:
        self.game = get_game(GAME)
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115  # kept open until the bench ends
        self.seed = 0

    def referee_cpu_us(self, matches: int) -> float:
        return self._timed(self._referee_matches, matches)

    def engine_cpu_us(self, matches: int) -> float:
        return self._timed(self._engine_matches, matches)

    def _timed(self, play: Callable[[int], Coroutine[Any, Any, int]], matches: int) -> float:
        before = time.process_time()
        decisions = asyncio.run(play(matches))
        return (time.process_time() - before) / decisions * 1e6

    async def _engine_matches(self, matches: int) -> int:
        decisions = 0
        for seed in range(matches):
            state = self.game.new(2, seed, {})
            while not state.is_over():
                acting = state.to_act()
                state.apply({seat: state.legal_actions(seat)[0] for seat in acting})
                decisions += 1
        return decisions

    async def _referee_matches(self, matches: int) -> int:
        control = TimeControl()
        stderr = self.stderr.fileno()
        clock = ProcessTreeClock(os.getpid())
        queue = list(range(matches))

        async def play_some() -> int:
            decisions = 0
            while queue:
                seed = queue.pop()
                sessions = [BotSession(Identity(f"bot-{seat}", bot_id=seat + 1), (), 1) for seat in range(2)]
                bots = [asyncio.ensure_future(_in_loop_bot(session)) for session in sessions]
                books = [
                    SeatState(
                        session.bot,
                        session,
                        SeatClock(control, charges_cpu=True),
                        cpu=clock,
                        stderr_at=lambda: os.fstat(stderr).st_size,
                    )
                    for session in sessions
                ]
                report = await Referee(f"m{seed}", self.game, seed, {}, books, control).run()
                decisions += len(report.decisions)
                for session in sessions:
                    session.finish()
                await asyncio.gather(*bots)
            return decisions

        return sum(await asyncio.gather(*(play_some() for _ in range(AT_ONCE))))


def rows(quick: bool) -> list[Row]:
    runs = 3 if quick else 5
    found: list[Row] = []
    in_loop = InLoopBench()
    matches = 48 if quick else 160
    ours, theirs, load = alternate_with_load(
        functools.partial(in_loop.referee_cpu_us, matches),
        functools.partial(in_loop.engine_cpu_us, matches),
        runs,
    )
    found.append(
        Row(
            "decisions",
            f"{GAME}: Referee.run with in-loop bots, no transport, {AT_ONCE} matches at once",
            "CPU µs/decision",
            ours,
            "the engine alone, same matches",
            theirs,
            load=load,
        )
    )
    transport = SteadyPingPong()
    worker = WorkerBench()
    try:
        rounds = 3 if quick else 8
        ours, theirs, load = alternate_with_load(
            functools.partial(worker.cpu_us, rounds),
            functools.partial(transport.cpu_us, AT_ONCE, 400),
            runs,
        )
    finally:
        worker.close()
        transport.close()
    jailed = "jailed " if bubblewrap().usable else ""
    found.append(
        Row(
            "decisions",
            f"{GAME}: one serve worker process, {jailed}instant bots kept warm, {AT_ONCE} matches at once",
            "CPU µs/decision",
            ours,
            "the bare gRPC transport's server, same sizes, 8 matches at once",
            theirs,
            load=load,
        )
    )
    return found


if __name__ == "__main__":
    from table import print_rows

    print_rows(rows("--quick" in sys.argv), "the referee's own CPU per decision")
