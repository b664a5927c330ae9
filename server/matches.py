"""Running a match whose bots the server launches for it: start, connect, referee, stop.

Each seat's command is started with the server's address and a one-time token in its
environment; the match begins when every bot has said hello or the connect deadline has
passed (a bot that is not there by then forfeits as NEVER_CONNECTED). Whatever happens, every
process is stopped and every token forgotten when the match ends.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kingmaker.games.api import OptionValue
from kingmaker.games.registry import get_game
from kingmaker.server.deadlines import SeatClock, TimeControl
from kingmaker.server.launcher import BotProcess, LaunchError, Limits
from kingmaker.server.referee import MatchReport, Referee, SeatState
from kingmaker.server.sessions import BotSession, SessionPool


@dataclass(frozen=True)
class SeatSpec:
    """A seat to fill by launching a command."""

    bot: str
    command: tuple[str, ...]
    cwd: str | None = None


@dataclass
class _Launch:
    spec: SeatSpec
    token: str
    waiting: asyncio.Future[BotSession]
    process: BotProcess | None = None
    failure: str = ""


class LaunchedMatchRunner:
    def __init__(
        self,
        pool: SessionPool,
        server_address: str,
        connect_timeout: float = 15.0,
        limits: Limits | None = None,
    ) -> None:
        self.pool = pool
        self.server_address = server_address
        self.connect_timeout = connect_timeout
        self.limits = limits or Limits()

    async def run(
        self,
        game_name: str,
        seats: Sequence[SeatSpec],
        seed: int,
        options: Mapping[str, OptionValue],
        control: TimeControl,
        match_id: str | None = None,
    ) -> MatchReport:
        game = get_game(game_name)
        game.new(len(seats), seed, options)  # reject bad player counts and options before launching
        launches = []
        for spec in seats:
            token = secrets.token_urlsafe(32)
            launches.append(_Launch(spec, token, self.pool.expect(token, spec.bot)))
        try:
            await asyncio.gather(*(self._start(launch) for launch in launches))
            await self._await_hellos(launches)
            books = [self._seat_state(launch, control) for launch in launches]
            referee = Referee(match_id or uuid.uuid4().hex[:12], game, seed, options, books, control)
            report = await referee.run()
        finally:
            await asyncio.gather(*(self._stop(launch) for launch in launches))
        return _with_stderr(report, launches)

    async def _start(self, launch: _Launch) -> None:
        environment = {"KINGMAKER_SERVER": self.server_address, "KINGMAKER_TOKEN": launch.token}
        try:
            launch.process = await BotProcess.start(
                launch.spec.command, environment, launch.spec.cwd, self.limits
            )
        except LaunchError as error:
            launch.failure = str(error)

    async def _await_hellos(self, launches: list[_Launch]) -> None:
        """Wait until every bot has connected, has died, or the connect deadline passed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.connect_timeout
        for launch in launches:
            if launch.process is None:
                continue
            exited = asyncio.ensure_future(launch.process.process.wait())
            waiting: set[asyncio.Future[Any]] = {launch.waiting, exited}
            try:
                remaining = max(0.0, deadline - loop.time())
                await asyncio.wait(waiting, timeout=remaining, return_when="FIRST_COMPLETED")
            finally:
                exited.cancel()
            if not launch.waiting.done():
                code = launch.process.returncode
                launch.failure = (
                    f"the bot exited with code {code} before saying hello"
                    if code is not None
                    else f"the bot did not say hello within {self.connect_timeout:g} s"
                )

    def _seat_state(self, launch: _Launch, control: TimeControl) -> SeatState:
        session = (
            launch.waiting.result() if launch.waiting.done() and not launch.waiting.cancelled() else None
        )
        process = launch.process
        book = SeatState(
            bot=launch.spec.bot,
            session=session,
            clock=SeatClock(control),
            crashed=process.exited if process is not None else None,
        )
        if session is None:
            book.detail = launch.failure or "the bot never connected"
        return book

    async def _stop(self, launch: _Launch) -> None:
        self.pool.forget(launch.token)
        if not launch.waiting.done():
            launch.waiting.cancel()
        elif not launch.waiting.cancelled():
            self.pool.remove(launch.waiting.result())
        if launch.process is not None:
            await launch.process.stop()


def _with_stderr(report: MatchReport, launches: list[_Launch]) -> MatchReport:
    """Keep the stderr tail of every seat that ended by a fault; drop the other logs."""
    seats = []
    for seat, launch in zip(report.seats, launches, strict=True):
        if launch.process is not None:
            if seat.end_reason.is_bot_fault:
                seat = dataclasses.replace(seat, stderr_tail=launch.process.stderr_tail())
            launch.process.discard_logs()
        seats.append(seat)
    return dataclasses.replace(report, seats=tuple(seats))
