"""Leasing seats: remote bots are taken all at once or not at all, so matches cannot deadlock;
a bot is blamed only for not being there, never for being busy in the server's other matches."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from typing import Any

import pytest

from kingmaker.server.jail.launcher import BotProcess
from kingmaker.server.seats.roster import Entrant, Lease, Roster, SeatAway
from kingmaker.server.seats.sessions import BotSession, Identity, SessionPool

X = Entrant(name="x", bot_id=1)
Y = Entrant(name="y", bot_id=2)


def connect(
    pool: SessionPool, entrant: Entrant, capacity: int = 1, games: tuple[str, ...] = ()
) -> BotSession:
    assert entrant.bot_id is not None
    session = BotSession(Identity(bot=entrant.name, bot_id=entrant.bot_id), games, capacity)
    pool.admit(session)
    return session


def test_two_matches_over_the_same_two_busy_bots_do_not_deadlock() -> None:
    async def scenario() -> None:
        pool = SessionPool()
        roster = Roster(pool, "unused", connect_timeout=5, busy_timeout=5)
        x, y = connect(pool, X), connect(pool, Y)
        first = asyncio.create_task(roster.lease_all([X, Y], "kingdoms", "A"))
        second = asyncio.create_task(roster.lease_all([Y, X], "kingdoms", "B"))
        done, _ = await asyncio.wait({first, second}, timeout=1, return_when=asyncio.FIRST_COMPLETED)
        # One match holds both bots; the other holds neither while it waits (no hold-and-wait).
        assert len(done) == 1
        winner, loser = (first, second) if first in done else (second, first)
        leases = winner.result()
        assert {lease.session for lease in leases} == {x, y}
        assert x.matches == y.matches and len(x.matches) == 1
        await asyncio.sleep(0.2)
        assert not loser.done()
        (match_id,) = x.matches
        for lease in leases:
            await roster.release(lease, match_id, reusable=True)
        later = await asyncio.wait_for(loser, 1)
        assert [lease.session for lease in later] in ([x, y], [y, x])
        assert all(not lease.failure for lease in later)

    asyncio.run(scenario())


def test_a_bot_busy_elsewhere_until_the_lease_gives_up_is_the_servers_failure() -> None:
    async def scenario() -> None:
        pool = SessionPool()
        roster = Roster(pool, "unused", connect_timeout=5, busy_timeout=0.3)
        x = connect(pool, X)
        x.matches.add("elsewhere")
        (lease,) = await roster.lease_all([X], "kingdoms", "A")
        assert lease.session is None
        assert lease.server_fault
        assert "busy" in lease.failure

    asyncio.run(scenario())


def test_a_bot_that_never_connects_is_its_own_fault() -> None:
    async def scenario() -> None:
        pool = SessionPool()
        roster = Roster(pool, "unused", connect_timeout=0.3, busy_timeout=5)
        y = connect(pool, Y)
        leases = await roster.lease_all([X, Y], "kingdoms", "A")
        assert (leases[0].session, leases[0].server_fault) == (None, False)
        assert "no connection" in leases[0].failure
        # The bot that was there still gets its seat.
        assert leases[1].session is y

    asyncio.run(scenario())


def test_a_bot_that_arrives_late_but_in_time_gets_its_seat() -> None:
    async def scenario() -> None:
        pool = SessionPool()
        roster = Roster(pool, "unused", connect_timeout=2, busy_timeout=5)
        leasing = asyncio.create_task(roster.lease_all([X], "kingdoms", "A"))
        await asyncio.sleep(0.2)
        x = connect(pool, X)
        (lease,) = await asyncio.wait_for(leasing, 1)
        assert lease.session is x

    asyncio.run(scenario())


def test_a_stream_is_leased_only_for_the_games_its_hello_offered() -> None:
    async def scenario() -> None:
        pool = SessionPool()
        roster = Roster(pool, "unused", connect_timeout=0.3, busy_timeout=5)
        connect(pool, X, capacity=4, games=("kings_road",))
        (lease,) = await roster.lease_all([X], "kingdoms", "A")
        assert lease.session is None and not lease.server_fault
        assert "offering kingdoms" in lease.failure
        anything = connect(pool, X, games=())
        (lease,) = await roster.lease_all([X], "kingdoms", "B")
        assert lease.session is anything

    asyncio.run(scenario())


def test_remote_seats_are_given_back_when_the_match_is_cancelled_while_launching() -> None:
    async def scenario() -> None:
        pool = SessionPool()
        roster = Roster(pool, "unused", connect_timeout=10, busy_timeout=5)
        x = connect(pool, X)
        silent = Entrant(name="silent", command=(sys.executable, "-c", "import time; time.sleep(30)"))
        leasing = asyncio.create_task(roster.lease_all([X, silent], "kingdoms", "A"))
        await asyncio.sleep(0.5)
        assert x.matches == {"A"}
        leasing.cancel()
        await asyncio.gather(leasing, return_exceptions=True)
        assert x.matches == set()
        await roster.close()

    asyncio.run(scenario())


def test_a_wait_given_up_for_an_away_bot_names_it_and_a_begun_match_is_left_alone() -> None:
    """The ladder gives up a match's wait for a bot that went away (``give_up_waiting``): the wait
    ends naming that bot; a match whose seats are taken already is not touched by it."""

    async def scenario() -> None:
        pool = SessionPool()
        roster = Roster(pool, "unused", connect_timeout=30, busy_timeout=30)
        connect(pool, Y)
        begun = await roster.lease_all([Y], "kingdoms", "begun")
        waiting = asyncio.create_task(roster.lease_all([X, Y], "kingdoms", "waiting"))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        roster.give_up_waiting("begun", {Y.bot_id or 0})  # its seat is taken: nothing happens
        await asyncio.sleep(0.2)
        assert not waiting.done()
        roster.give_up_waiting("waiting", {X.bot_id or 0})
        with pytest.raises(SeatAway) as away:
            await asyncio.wait_for(waiting, 5)
        assert away.value.bots == ["x"]
        assert begun[0].session is not None and begun[0].session.matches == {"begun"}

    asyncio.run(scenario())


class _StartingBot:
    """A launched bot's process as the roster sees it, made up: it says hello (with the token it
    was given) after ``hello_after`` seconds, or never; ``kept_from_cpu`` says whether the machine
    kept it waiting for a CPU all that time (its run delay), as a loaded machine does;
    ``during_a_stall``: its hello comes while the server's loop stalls past the connect timeout."""

    def __init__(
        self, pool: SessionPool, hello_after: float | None, kept_from_cpu: bool, during_a_stall: bool
    ) -> None:
        self.pool, self.hello_after, self.during_a_stall = pool, hello_after, during_a_stall
        self.returncode = None
        self.process = self  # (``process.wait()``: it never exits)
        self.cpu_clock = self if kept_from_cpu else None
        self.started = 0.0

    async def start(self, command: list[str], environment: dict[str, str], *args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        self.started = loop.time()
        hello = BotSession(Identity(bot="x", bot_id=1, launch_key=environment["KINGMAKER_TOKEN"]), (), 1)
        if self.hello_after is not None:
            loop.call_later(self.hello_after, self.pool.admit, hello)
        if self.during_a_stall:

            def arrive() -> None:  # as gRPC does: from its poller thread, then hop by hop on the loop
                loop.call_soon_threadsafe(loop.call_soon, loop.call_soon, self.pool.admit, hello)

            def stall() -> None:  # the hello comes during it, which lasts past the 0.3 s timeout
                arrival = threading.Thread(target=arrive)
                arrival.start()
                arrival.join()
                time.sleep(0.4)

            loop.call_later(0.05, stall)
        return self

    async def wait(self) -> int:
        await asyncio.Event().wait()
        return 0

    def note_request(self) -> None:
        pass

    def waited_since_request(self) -> float:  # every moment since its launch, waiting
        return asyncio.get_running_loop().time() - self.started

    def runnable_now(self) -> bool:
        return True


def _launch(
    monkeypatch: pytest.MonkeyPatch,
    hello_after: float | None,
    kept_from_cpu: bool = False,
    during_a_stall: bool = False,
) -> tuple[Lease, float]:
    """Lease a managed bot whose start is ``_StartingBot``'s, with a 0.3 s connect timeout: its
    lease, and how long it took."""

    async def scenario() -> tuple[Lease, float]:
        pool = SessionPool()
        bot = _StartingBot(pool, hello_after, kept_from_cpu, during_a_stall)
        monkeypatch.setattr(BotProcess, "start", bot.start)
        roster = Roster(pool, "unused", connect_timeout=0.3, busy_timeout=5)
        started = time.monotonic()
        (lease,) = await roster.lease_all([Entrant(name="x", bot_id=1, command=("bot",))], "kingdoms", "A")
        return lease, time.monotonic() - started

    return asyncio.run(scenario())


def test_a_launched_bot_kept_from_the_cpu_as_it_starts_is_not_blamed_for_a_late_hello(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bot's hello is waited for in its own time, as its replies are: on a loaded machine (a
    server restarted with a ladder's bots all starting at once, a JVM) a bot kept from a CPU past
    the connect timeout did not fail to show up. Before, it was NEVER_CONNECTED, its fault."""
    lease, _ = _launch(monkeypatch, hello_after=0.45, kept_from_cpu=True)
    assert lease.session is not None and not lease.failure
    # A late hello with no such excuse: the bot's own fault, as before. (Later than the one above,
    # so that a loop running late on a loaded machine cannot bring it in before the wait ends.)
    lease, _ = _launch(monkeypatch, hello_after=1.5, kept_from_cpu=False)
    assert lease.session is None and not lease.server_fault
    assert "did not say hello within 0.3 s" in lease.failure


def test_a_launched_bot_that_never_says_hello_is_still_its_own_fault_on_a_busy_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The excuse is capped at one more connect timeout: a bot whose threads spin without ever
    saying hello is kept from a CPU all the time, and must still be called absent."""
    lease, took = _launch(monkeypatch, hello_after=None, kept_from_cpu=True)
    assert lease.session is None and not lease.server_fault
    assert "did not say hello" in lease.failure
    assert took >= 0.6  # two connect timeouts: its own, and the machine's


def test_a_hello_that_came_while_the_servers_loop_stalled_is_not_called_absent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server's loop stalls past the connect timeout while the bot's hello arrives: gRPC's
    poller thread hands it to the loop, and the stream's handler takes a few loop iterations to
    admit it, while the timer that ends the wait is due at once. The stall was the server's."""
    lease, _ = _launch(monkeypatch, hello_after=None, during_a_stall=True)
    assert lease.session is not None and not lease.failure
