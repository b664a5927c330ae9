"""Finding a connected bot for every seat of a match.

A seat is taken by an ``Entrant``: a registered managed bot (the server runs its command), a
registered remote bot (its author runs it; it connects with its token), or an ad hoc command
given for one match. Managed bots stay running between matches, so the cost of starting a
process (~120 ms for Python with gRPC) is paid once per league, not once per match; a process
whose seat ended in a fault is stopped rather than trusted with another match.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from kingmaker.server.launcher import BotProcess, LaunchError
from kingmaker.server.sandbox import SandboxPolicy
from kingmaker.server.sessions import BotSession, Identity, SessionPool

POLL_SECONDS = 0.05


@dataclass(frozen=True)
class Entrant:
    """Who takes a seat."""

    name: str
    bot_id: int | None = None
    """The registered bot's id; None for an ad hoc command."""
    command: tuple[str, ...] | None = None
    """What the server runs; None for a remote bot, which connects by itself."""
    cwd: str | None = None


@dataclass
class Lease:
    """A seat's connection for one match."""

    entrant: Entrant
    session: BotSession | None = None
    process: BotProcess | None = None
    failure: str = ""
    """Why there is no session, for the seat's result."""

    async def crashed(self) -> bool:
        return self.process is not None and await self.process.exited()


@dataclass
class _Kept:
    process: BotProcess
    session: BotSession


@dataclass
class Roster:
    pool: SessionPool
    server_address: str
    connect_timeout: float = 15.0
    sandbox: SandboxPolicy | None = None
    """When set, launched bots run under it (in the bubblewrap jail where it works) and reach the
    server through its Unix socket instead of ``server_address``."""
    _idle: dict[int, list[_Kept]] = field(default_factory=lambda: defaultdict(list))
    _busy: set[BotProcess] = field(default_factory=set)

    async def lease_all(self, entrants: list[Entrant], match_id: str) -> list[Lease]:
        """A lease per seat, launching and waiting for bots as needed (concurrently)."""
        return list(await asyncio.gather(*(self._lease(entrant, match_id) for entrant in entrants)))

    async def release(self, lease: Lease, match_id: str, reusable: bool) -> str:
        """The match is over for this seat: keep a healthy managed bot, stop anything else.
        Returns the end of a stopped bot's stderr (read once it has stopped, so it is complete)."""
        session, process = lease.session, lease.process
        if session is not None:
            session.matches.discard(match_id)
        if process is None:
            return ""
        self._busy.discard(process)
        alive = session is not None and not session.closed.is_set() and process.returncode is None
        if reusable and alive and lease.entrant.bot_id is not None and session is not None:
            self._idle[lease.entrant.bot_id].append(_Kept(process, session))
            return ""
        if session is not None:
            self.pool.remove(session)
        await process.stop()
        tail = process.stderr_tail()
        process.discard_logs()
        return tail

    async def retire(self, bot_ids: set[int] | None = None) -> None:
        """Stop the kept processes of these bots (all bots when None)."""
        chosen = list(self._idle) if bot_ids is None else [bot for bot in bot_ids if bot in self._idle]
        kept = [item for bot in chosen for item in self._idle.pop(bot, [])]
        for item in kept:
            self.pool.remove(item.session)
        await asyncio.gather(*(item.process.stop() for item in kept))
        for item in kept:
            item.process.discard_logs()

    async def close(self) -> None:
        await self.retire()
        busy = list(self._busy)
        self._busy.clear()
        await asyncio.gather(*(process.stop() for process in busy))

    async def _lease(self, entrant: Entrant, match_id: str) -> Lease:
        if entrant.command is None:
            return await self._remote(entrant, match_id)
        if entrant.bot_id is not None:
            kept = self._reuse(entrant.bot_id)
            if kept is not None:
                kept.session.matches.add(match_id)
                self._busy.add(kept.process)
                return Lease(entrant, kept.session, kept.process)
        return await self._launch(entrant, match_id)

    def _reuse(self, bot_id: int) -> _Kept | None:
        while self._idle.get(bot_id):
            kept = self._idle[bot_id].pop()
            if not kept.session.closed.is_set() and kept.process.returncode is None:
                return kept
            self.pool.remove(kept.session)
        return None

    async def _launch(self, entrant: Entrant, match_id: str) -> Lease:
        assert entrant.command is not None
        token = secrets.token_urlsafe(32)
        identity = Identity(bot=entrant.name, bot_id=entrant.bot_id, launch_key=token)
        waiting = self.pool.expect(token, identity)
        address = self.sandbox.server_address if self.sandbox is not None else self.server_address
        environment = {"KINGMAKER_SERVER": address, "KINGMAKER_TOKEN": token}
        lease = Lease(entrant)
        try:
            # Without a policy the launcher still applies its default limits.
            lease.process = await BotProcess.start(
                entrant.command, environment, entrant.cwd, sandbox=self.sandbox
            )
        except LaunchError as error:
            self.pool.forget(token)
            lease.failure = str(error)
            return lease
        self._busy.add(lease.process)
        try:
            exited = asyncio.ensure_future(lease.process.process.wait())
            pending: set[asyncio.Future[Any]] = {waiting, exited}
            try:
                await asyncio.wait(pending, timeout=self.connect_timeout, return_when="FIRST_COMPLETED")
            finally:
                exited.cancel()
            if waiting.done():
                lease.session = waiting.result()
                lease.session.matches.add(match_id)
            else:
                code = lease.process.returncode
                lease.failure = (
                    f"the bot exited with code {code} before saying hello"
                    if code is not None
                    else f"the bot did not say hello within {self.connect_timeout:g} s"
                )
        finally:
            self.pool.forget(token)
            if not waiting.done():
                waiting.cancel()
        return lease

    async def _remote(self, entrant: Entrant, match_id: str) -> Lease:
        """Wait for a connected stream of this remote bot with room for another match."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.connect_timeout
        while True:
            for session in list(self.pool.sessions):
                identity = session.identity
                free = len(session.matches) < session.capacity and not session.closed.is_set()
                if identity.bot_id == entrant.bot_id and identity.launch_key is None and free:
                    session.matches.add(match_id)
                    return Lease(entrant, session)
            if loop.time() >= deadline:
                return Lease(entrant, failure=f"the bot was not connected within {self.connect_timeout:g} s")
            await asyncio.sleep(POLL_SECONDS)
