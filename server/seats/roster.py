"""Finding a connected bot for every seat of a match.

A seat is taken by an ``Entrant``: a registered managed bot (the server runs its command), a
registered remote bot (its author runs it; it connects with its token), or an ad hoc command
given for one match (kept like a managed bot only when the server names it ``keep_as``:
validation's random bots). Managed bots stay running between matches, so the cost of starting a
process (~120 ms for Python with gRPC, ~0.2 s of CPU in the jail) is paid once, not once per
match: an idle process is kept for ``keep_idle_s`` after its last match (so the next league, or
a ladder's next round, finds it warm), and a bot keeps at most ``kept_per_bot`` idle processes
(more run only while it plays several matches at once); at most ``kept_in_all`` are kept in all,
so that a ladder of a thousand bots does not keep a thousand programs in memory: past it, the
process idle longest is stopped to make room. A process whose seat ended in a fault is
stopped rather than trusted with another match; ``retire`` stops a bot's idle processes at once
(a new version, a bot edited or removed, the server stopping).

Remote bots have a capacity (their hello's ``max_concurrent_matches``), so seats are leased all
at once or not at all: a match takes every remote seat in one step when each of its bots has a
free stream that offered the game, and otherwise holds none of them while it waits. A match
never holds one bot while it waits for another, so two matches cannot deadlock over two bots.

Who is to blame when a seat stays empty: a remote bot with no stream for the game for
``connect_timeout`` did not show up (its fault: NEVER_CONNECTED); a bot that was connected but
busy in its other matches until ``busy_timeout``, or a command the server could not start, is
the server's failure to fill the seat (``Lease.server_fault``: the match is void, not the bot's).
A ladder's remote bot may be away (``presence``): the ladder gives up waiting for it
(``give_up_waiting``) once it is, and its match, told to nobody yet, is cancelled (``SeatAway``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kingmaker.server.building.build_store import BuildStore
from kingmaker.server.building.builds import missing_program
from kingmaker.server.building.manifest import Manifest, launch_command
from kingmaker.server.jail.launcher import BotProcess, LaunchError
from kingmaker.server.jail.sandbox import SandboxPolicy
from kingmaker.server.live import LiveHub
from kingmaker.server.seats.deadlines import BUSY_TIMEOUT, KEEP_BOTS_MAX, KEEP_IDLE_S, TimeControl
from kingmaker.server.seats.own_time import more_to_wait
from kingmaker.server.seats.sessions import REPLY_STALL_S, BotSession, Identity, SessionPool

KEPT_PER_BOT = 2
"""The most idle processes kept per bot and version (on each host that launches bots)."""


@dataclass(frozen=True)
class Entrant:
    """Who takes a seat."""

    name: str
    bot_id: int | None = None
    """The registered bot's id; None for an ad hoc command."""
    command: tuple[str, ...] | None = None
    """What the server runs; None for a remote bot, which connects by itself."""
    cwd: str | None = None
    version: int | None = None
    """The bot's version that plays (its warm processes are kept per version)."""
    protocol: str = "grpc"
    """"grpc", or "json-lines": the server starts it behind the bridge."""
    build_hash: str | None = None
    """For a built version: its built folder (``build_store``), where ``command`` starts."""
    control: TimeControl | None = None
    """The seat's own clock, if not the match's: a person's (a bank and an increment, docs/play.md)."""
    keep_as: str | None = None
    """For an ad hoc command of the server's own (validation's random bots): the name its idle
    processes are kept warm under, as a registered bot's are under its id and version."""


MATCH_STDERR_BYTES = 64 * 1024
"""The most of a bot's stderr kept per match (its end): what its author reads in `bot logs`."""
END_SEEN_WAIT_S = 5.0
"""How long a launched bot that acknowledges match ends is waited for after one (``release``):
a bot that does work as a match ends (saving what it learnt) has this long before its later
lines go to its next match; one that never acknowledges delays its match's result this long."""


@dataclass
class Lease:
    """A seat's connection for one match."""

    entrant: Entrant
    session: BotSession | None = None
    process: BotProcess | None = None
    failure: str = ""
    """Why there is no session, for the seat's result."""
    server_fault: bool = False
    """True when the server, not the bot, failed to fill the seat."""
    stderr_start: int = 0
    """Where the bot's stderr stood when the match took it: its part of the log starts there."""

    async def exit(self) -> str | None:
        """How the bot's process ended, if the server launched it and it has ended (waiting a
        moment for a process whose stream just closed); None otherwise."""
        if self.process is None or not await self.process.exited():
            return None
        return self.process.exit_description()


class SeatAway(Exception):
    """A match's wait for its remote seats was given up: these bots are away (``presence``).
    The match never began, so it is cancelled, not played or faulted."""

    def __init__(self, bots: list[str]) -> None:
        super().__init__(", ".join(bots))
        self.bots = bots


@dataclass(frozen=True)
class SeatOutput:
    """What a managed bot left behind in one match, read when the match let it go."""

    stderr: str = ""
    """Its stderr during the match (the end, at most ``MATCH_STDERR_BYTES``)."""
    stderr_bytes: int = 0
    tail: str = ""
    """The end of its stderr file, kept for a seat that ended by a fault."""
    exit: str = ""
    """How its process ended, if it did: "exited with code 1", "killed by SIGSEGV"."""


@dataclass
class _Kept:
    process: BotProcess
    session: BotSession
    since: float = 0.0
    """When it became idle (the loop's clock)."""


@dataclass
class Roster:
    pool: SessionPool
    server_address: str
    connect_timeout: float = 15.0
    busy_timeout: float = BUSY_TIMEOUT
    sandbox: SandboxPolicy | None = None
    """When set, launched bots run under it (in the bubblewrap jail where it works) and reach the
    server through its Unix socket instead of ``server_address``."""
    temp_root: Path | None = None
    """Where launched bots' folders go (the server's run folder); their stderr is a file in memory."""
    live: LiveHub | None = None
    """Where the matches played with these bots publish to spectators (None: nobody watches)."""
    builds: BuildStore | None = None
    """Where built versions' folders are on this host (an entrant with a ``build_hash``)."""
    keep_idle_s: float = KEEP_IDLE_S
    """How long an idle process is kept (0: stopped as soon as its match ends)."""
    kept_per_bot: int = KEPT_PER_BOT
    """The most idle processes kept per bot and version; one more is stopped when its match ends."""
    kept_in_all: int = KEEP_BOTS_MAX
    """The most idle processes kept, of every bot; to keep one more, the one idle longest is stopped."""
    _idle: dict[WarmKey, list[_Kept]] = field(default_factory=lambda: defaultdict(list))
    _busy: set[BotProcess] = field(default_factory=set)
    _reaper: asyncio.Task[None] | None = field(default=None, repr=False)
    _stopping: set[asyncio.Task[None]] = field(default_factory=set, repr=False)
    """Processes made room for, stopping (the match that made room does not wait for them)."""
    _waiting: dict[str, dict[int, str]] = field(default_factory=dict, repr=False)
    """The matches waiting for remote seats: match id -> the bots waited for (id -> name)."""
    _given_up: dict[str, list[str]] = field(default_factory=dict, repr=False)
    """The waits given up (``give_up_waiting``): match id -> the away bots' names."""

    def give_up_waiting(self, match_id: str, away: Collection[int]) -> None:
        """If the match still waits for a seat of one of these bots, which are away, stop waiting:
        its ``lease_all`` raises ``SeatAway``. A match whose seats are taken is not touched: a bot
        that leaves once its match has begun is faulted for it."""
        waited = self._waiting.get(match_id, {})
        gone = sorted(name for bot_id, name in waited.items() if bot_id in away)
        if gone:
            self._given_up[match_id] = gone
            self.pool.notify()

    async def lease_all(self, entrants: list[Entrant], game: str, match_id: str) -> list[Lease]:
        """A lease per seat: the remote seats all at once, then the managed bots (concurrently)."""
        remote = {seat: entrant for seat, entrant in enumerate(entrants) if entrant.command is None}
        leases = await self._lease_remote(remote, game, match_id) if remote else {}
        managed = [(seat, entrant) for seat, entrant in enumerate(entrants) if seat not in remote]
        try:
            launched = await asyncio.gather(
                *(self._lease_managed(entrant, match_id) for _, entrant in managed)
            )
        except BaseException:  # cancelled while launching: the remote bots must not stay taken
            for lease in leases.values():
                await self.release(lease, match_id, reusable=True)
            raise
        leases.update(zip((seat for seat, _ in managed), launched, strict=True))
        return [leases[seat] for seat in range(len(entrants))]

    async def release(self, lease: Lease, match_id: str, reusable: bool) -> SeatOutput:
        """The match is over for this seat: keep a healthy managed bot, stop anything else.
        Returns what the bot wrote during the match and, for a stopped bot, the end of its
        stderr and how it ended (read once it has stopped, so they are complete).

        A healthy launched bot that acknowledges match ends is first given until its
        ``MatchEndSeen`` (at most ``END_SEEN_WAIT_S``): what it prints on the match's end is still
        the match's. One whose seat ended by a fault is not waited for: it is stopped at once."""
        if reusable and lease.process is not None and lease.session is not None:
            try:
                await lease.session.match_end_seen(match_id, END_SEEN_WAIT_S)
            except asyncio.CancelledError:  # the bot must still be let go, not kept
                await self._release(lease, match_id, reusable=False)
                raise
        return await self._release(lease, match_id, reusable)

    async def _release(self, lease: Lease, match_id: str, reusable: bool) -> SeatOutput:
        session, process = lease.session, lease.process
        if session is not None:
            session.end_match(match_id)
            self.pool.notify()
        if process is None:
            return SeatOutput()
        self._busy.discard(process)
        exited = process.exit_description()  # before stop(): an exit of its own, not our kill
        alive = session is not None and session.takes_matches and process.returncode is None
        if reusable and alive and kept_warm(lease.entrant) and session is not None:
            key = _warm_key(lease.entrant)
            if (
                len(self._idle.get(key, ())) < self.kept_per_bot
                and self.keep_idle_s > 0
                and self.kept_in_all > 0
            ):
                if self.kept() >= self.kept_in_all:
                    self._make_room()
                self._idle[key].append(_Kept(process, session, asyncio.get_running_loop().time()))
                self._reap_later()
                stderr, written = process.stderr_since(lease.stderr_start, MATCH_STDERR_BYTES)
                return SeatOutput(stderr, written)
        if session is not None:
            self.pool.remove(session)
        await process.stop()
        stderr, written = process.stderr_since(lease.stderr_start, MATCH_STDERR_BYTES)
        output = SeatOutput(stderr, written, process.stderr_tail(), exited)
        process.discard_logs()
        return output

    async def check(self, entrant: Entrant) -> tuple[bool, str, str]:
        """Launch a managed bot's command up to its hello, then stop it (as `bot add` and
        `bot check` do): (it said hello, what happened, the end of its stderr)."""
        started = asyncio.get_running_loop().time()
        lease = await self._launch(dataclasses.replace(entrant, bot_id=None), "check")
        tail = (await self.release(lease, "check", reusable=False)).tail
        seconds = asyncio.get_running_loop().time() - started
        if lease.session is not None:
            return True, f"the bot said hello in {seconds:.1f} s", tail
        return False, lease.failure or "the bot did not say hello", tail

    async def retire(self, bot_ids: set[int] | None = None) -> None:
        """Stop the kept processes of these bots, every version of them (all bots when None)."""
        chosen = [key for key in self._idle if bot_ids is None or key[0] in bot_ids]
        await self._stop_kept([item for key in chosen for item in self._idle.pop(key, [])])

    def kept(self) -> int:
        """How many idle processes are kept now."""
        return sum(len(items) for items in self._idle.values())

    def _make_room(self) -> None:
        """Stop the process idle longest, of any bot (in the background: stopping one may take
        seconds, and the match whose bot is kept instead must not wait for it)."""
        key = min(
            (found for found, items in self._idle.items() if items),
            key=lambda found: self._idle[found][0].since,
        )
        oldest = self._idle[key].pop(0)  # each list is in the order its processes became idle
        if not self._idle[key]:
            del self._idle[key]
        task = asyncio.create_task(self._stop_kept([oldest]), name="idle bot process made room for")
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    async def _stop_kept(self, kept: list[_Kept]) -> None:
        for item in kept:
            self.pool.remove(item.session)
        await asyncio.gather(*(item.process.stop() for item in kept))
        for item in kept:
            item.process.discard_logs()

    def _reap_later(self) -> None:
        """Make sure idle processes are stopped once kept for ``keep_idle_s``."""
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.create_task(self._reap(), name="idle bot processes")

    async def _reap(self) -> None:
        """Stop each idle process ``keep_idle_s`` after its last match; ends once none is kept."""
        loop = asyncio.get_running_loop()
        while self._idle:
            now = loop.time()
            expired: list[_Kept] = []
            for key in list(self._idle):
                items = self._idle[key]
                expired += [item for item in items if now - item.since >= self.keep_idle_s]
                items[:] = [item for item in items if now - item.since < self.keep_idle_s]
                if not items:
                    del self._idle[key]
            await self._stop_kept(expired)
            oldest = min((item.since for items in self._idle.values() for item in items), default=None)
            if oldest is None:
                return
            await asyncio.sleep(max(0.0, oldest + self.keep_idle_s - loop.time()))

    async def close(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            await asyncio.gather(self._reaper, return_exceptions=True)
            self._reaper = None
        await self.retire()
        await asyncio.gather(*self._stopping, return_exceptions=True)
        busy = list(self._busy)
        self._busy.clear()
        await asyncio.gather(*(process.stop() for process in busy))

    async def _lease_managed(self, entrant: Entrant, match_id: str) -> Lease:
        if kept_warm(entrant):
            kept = self._reuse(_warm_key(entrant))
            if kept is not None:
                kept.session.matches.add(match_id)
                self._busy.add(kept.process)
                return Lease(entrant, kept.session, kept.process, stderr_start=kept.process.stderr_size())
        return await self._launch(entrant, match_id)

    def _reuse(self, key: WarmKey) -> _Kept | None:
        while self._idle.get(key):
            kept = self._idle[key].pop()
            if kept.session.takes_matches and kept.process.returncode is None:
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
            command, cwd, sandbox = self._how_to_start(entrant)
            # Without a policy the launcher still applies its default limits.
            lease.process = await BotProcess.start(
                command, environment, cwd, sandbox=sandbox, temp_root=self.temp_root
            )
        except LaunchError as error:
            # The command cannot run here at all: a matter of this server's set-up, not of the bot.
            self.pool.forget(token)
            lease.failure = str(error)
            lease.server_fault = True
            return lease
        self._busy.add(lease.process)
        try:
            await self._hello_or_exit(lease.process, waiting)
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

    async def _hello_or_exit(self, process: BotProcess, waiting: asyncio.Future[BotSession]) -> None:
        """Wait until the launched bot says hello or exits, for ``connect_timeout`` of its own time:
        as for a reply (``more_to_wait``), the time the machine kept its processes from a CPU
        is not its own, up to one more ``connect_timeout``, nor a stall of this server's loop that
        its hello waited through. A bot starting on a busy machine (a JVM, a ladder's bots all
        starting after a restart) is not blamed for the machine."""
        loop = asyncio.get_running_loop()
        clock = process.cpu_clock
        if clock is not None:
            clock.note_request()  # (its run delay is counted from here)
        launched_at = loop.time()
        exited = asyncio.ensure_future(process.process.wait())
        pending: set[asyncio.Future[Any]] = {waiting, exited}
        wait: float | None = self.connect_timeout
        try:
            while wait is not None:
                await asyncio.wait(pending, timeout=wait, return_when="FIRST_COMPLETED")
                if waiting.done() or exited.done():
                    return
                wait = more_to_wait(self.connect_timeout, loop.time() - launched_at, clock)
            # A hello that came while this server's loop was stalled passes a few more loop
            # iterations (gRPC's completion, the stream's handler) after the stall than the
            # timer that ends the wait: let them run before calling the bot absent.
            await asyncio.wait(pending, timeout=REPLY_STALL_S)
        finally:
            exited.cancel()

    def _how_to_start(self, entrant: Entrant) -> tuple[list[str], str | None, SandboxPolicy | None]:
        """The command, folder and policy that start this entrant: a built version starts in its
        built folder (``/bot`` in the jail), through the bridge when it speaks JSON lines."""
        assert entrant.command is not None
        if entrant.build_hash is None:  # a command as registered, run as it is
            return list(entrant.command), entrant.cwd, self.sandbox
        if self.builds is None or not self.builds.has(entrant.build_hash):
            raise LaunchError(
                f"the built folder {entrant.build_hash[:12]} of {entrant.name} is not on this host"
            )
        folder = self.builds.path(entrant.build_hash)
        run = Manifest(tuple(entrant.command))
        missing = missing_program(run, folder)
        if missing:
            raise LaunchError(f"bot {entrant.name}: {missing}")
        policy = self.sandbox or SandboxPolicy(isolate=False)
        policy = dataclasses.replace(policy, bot_folder=str(folder))
        return launch_command(entrant.command, entrant.protocol), str(folder), policy

    async def _lease_remote(self, entrants: dict[int, Entrant], game: str, match_id: str) -> dict[int, Lease]:
        """Lease every remote seat in one step, waiting until each bot has a free stream (see the
        module docstring for who is blamed when one never does)."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        leases: dict[int, Lease] = {}
        waiting = dict(entrants)
        absent_since: dict[int, float] = {}
        try:
            while waiting:
                free = self._free_sessions(waiting, game)
                if len(free) == len(waiting):
                    for seat, session in free.items():
                        session.matches.add(match_id)
                        leases[seat] = Lease(waiting[seat], session)
                    break
                if match_id in self._given_up:  # (a bot back in time still takes its seat, above)
                    raise SeatAway(self._given_up[match_id])
                self._waiting[match_id] = {e.bot_id: e.name for e in waiting.values() if e.bot_id is not None}
                now = loop.time()
                for seat, entrant in list(waiting.items()):
                    if any(s.plays(game) for s in self._streams(entrant)):
                        absent_since.pop(seat, None)
                    elif now - absent_since.setdefault(seat, now) >= self.connect_timeout:
                        text = f"the bot had no connection offering {game} for {self.connect_timeout:g} s"
                        leases[seat] = Lease(entrant, failure=text)
                        del waiting[seat]
                if waiting and now - started >= self.busy_timeout:
                    for seat, entrant in waiting.items():
                        text = f"the bot stayed busy in its other matches for {self.busy_timeout:g} s"
                        leases[seat] = Lease(entrant, failure=text, server_fault=True)
                    break
                if any(seat not in free for seat in waiting):
                    deadlines = [since + self.connect_timeout for since in absent_since.values()]
                    wake = min([started + self.busy_timeout, *deadlines])
                    await self.pool.wait_for_change(wake - now)
        finally:
            self._waiting.pop(match_id, None)
            self._given_up.pop(match_id, None)
        return leases

    def _streams(self, entrant: Entrant) -> list[BotSession]:
        """The open streams this remote bot connected itself (not ones the server launched)."""
        return [
            session
            for session in self.pool.sessions_of(entrant.bot_id)
            if session.identity.launch_key is None and not session.closed.is_set()
        ]

    def _free_sessions(self, entrants: dict[int, Entrant], game: str) -> dict[int, BotSession]:
        """For each seat whose bot has a stream with room for this game, one such stream."""
        free: dict[int, BotSession] = {}
        for seat, entrant in entrants.items():
            session = next((s for s in self._streams(entrant) if s.plays(game) and s.has_room), None)
            if session is not None:
                free[seat] = session
        return free


WarmKey = tuple[int | str, int | None]
"""What idle processes are kept under: (bot id, version), or (``keep_as``, None)."""


def kept_warm(entrant: Entrant) -> bool:
    """Whether the entrant's processes are kept between matches: a registered bot's, or an ad hoc
    command the server names ``keep_as``."""
    return entrant.bot_id is not None or entrant.keep_as is not None


def _warm_key(entrant: Entrant) -> WarmKey:
    """Warm processes are kept per bot and version: a new version never reuses an old process."""
    if entrant.bot_id is not None:
        return entrant.bot_id, entrant.version
    assert entrant.keep_as is not None
    return entrant.keep_as, None
