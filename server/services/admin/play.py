"""A person at the table: the ``Play`` stream seats a person against registered bots.

The person is a seat like any other: a ``BotSession`` admitted to the pool under the person's
own seat row (``ladder.bots.persons``), leased by the roster as a remote bot's stream is, asked
by the same referee with the same observation and legal actions, on a human clock (a bank and an
increment, ``human_control``). What the referee sends the session goes out on this stream as it
would on a bot's Arena stream; the replies that come back are handed to the session as a bot's
are. The match is stored like any one-off match, never rated on the ladder, and its reason says
a person played; with ``serve --rate-people``, an author's (not a guest's) is rated in the
separate "with people" ratings (``Match.rated_with_people``).

A guest (``guests``: a call with no token that names a guest, when the server takes guests)
sits down as an author does, under a guest's seat row, while a guest seat is free.

The stream ending (the website's relay gone, a terminal closed) is the seat's disconnection:
it forfeits and the bots play on. A person is never struck for a fault by the server's relay:
the website refuses an illegal or stale click itself, before anything reaches the referee.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets
from collections.abc import AsyncIterator

import grpc

from kingmaker.games.api import OptionsError, OptionValue
from kingmaker.games.registry import UnknownGameError, get_game
from kingmaker.ladder import bounds
from kingmaker.ladder.bots.persons import guest_name, person_name, person_seat
from kingmaker.ladder.bots.version_picks import Pick, check_picks, parse_pick
from kingmaker.ladder.errors import InvalidRequestError, LadderError
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.sdk.codec import CodecError, options_from_proto
from kingmaker.server.grpc_abort import abort
from kingmaker.server.scheduling.rated import entrants_of, play_ticket
from kingmaker.server.seats.deadlines import TimeControl
from kingmaker.server.seats.sessions import BotSession, Identity
from kingmaker.server.services import validation
from kingmaker.server.services.admin.base import AdminBase, Context
from kingmaker.server.services.admin.guests import NoGuestSeat, guest_of
from kingmaker.server.services.permissions import Denied, check_rule
from kingmaker.v1 import admin_pb2, arena_pb2

HUMAN_BANK_MS = 5 * 60 * 1000
"""A person's bank unless the table asks for another: five minutes for the whole match..."""
HUMAN_INCREMENT_MS = 10 * 1000
"""...and ten seconds more after every decision (a game of Kingdoms is ~15 decisions a seat)."""
HUMAN_DECISION_MS = 1
"""Nothing is free: a person's every decision is paid from the bank (the bank is the clock)."""
HUMAN_STRIKES = 1
"""The bank spent is the seat lost: a closed tab costs its clock, then the seat (and only that)."""


def human_control(bank_ms: int = 0, increment_ms: int = 0) -> TimeControl:
    """A person's clock: a bank and an increment (0: the defaults above)."""
    validation.within(bounds.BANK_MS, bank_ms)
    validation.within(bounds.INCREMENT_MS, increment_ms)
    return TimeControl(
        decision_ms=HUMAN_DECISION_MS,
        bank_ms=bank_ms or HUMAN_BANK_MS,
        increment_ms=increment_ms or HUMAN_INCREMENT_MS,
        max_strikes=HUMAN_STRIKES,
    )


@dataclasses.dataclass(frozen=True)
class Table:
    """A checked ``PlaySetup``."""

    game: str
    seats: list[str]
    """Every seat's name in order, the person's ``person:NAME`` among the bots."""
    picks: list[Pick]
    """The opponents as asked for: a bot named ``NAME@N`` plays its version N (``version_picks``)."""
    seat: int
    options: dict[str, OptionValue]
    control: TimeControl
    seed: int


_PLAYING: set[asyncio.Task[None]] = set()
"""Matches with a person still being played (a task is kept here until its result is stored,
whether or not the person's stream is still open)."""


class PlayRpcs(AdminBase):
    """The ``Play`` stream (its own permission check: its messages are the Arena's, shown whole
    to the one person they are for, so the Admin replies' field filter does not apply)."""

    async def Play(
        self, requests: AsyncIterator[admin_pb2.PlayMessage], context: Context
    ) -> AsyncIterator[arena_pb2.ServerMessage]:
        guest = guest_of(context.invocation_metadata())
        try:
            caller = await self.caller(context)
            if not guest:
                check_rule("Play", caller)
        except Denied as denied:
            status = (
                grpc.StatusCode.UNAUTHENTICATED
                if denied.unauthenticated
                else grpc.StatusCode.PERMISSION_DENIED
            )
            await abort(context, status, str(denied))
        first = await anext(aiter(requests), None)
        if first is None or first.WhichOneof("message") != "setup":
            await abort(
                context, grpc.StatusCode.INVALID_ARGUMENT, "a Play stream starts with its table (setup)"
            )
        try:
            seat_name = guest_name(guest) if guest else person_name(caller.name)
            table = _table(first.setup, seat_name)
        except (UnknownGameError, OptionsError, CodecError, ValueError, LadderError) as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        if guest:
            try:
                self.guest_seats.take(guest)
            except NoGuestSeat as refused:
                await abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, str(refused))
            context.add_done_callback(lambda _: self.guest_seats.leave(guest))
        person_id = await asyncio.to_thread(person_seat, self.db, seat_name)
        if self.pool.sessions_of(person_id):
            await abort(
                context, grpc.StatusCode.FAILED_PRECONDITION, "you are playing at another table already"
            )
        await self._refuse_without_jail(
            context, [name for name in table.seats if name != table.seats[table.seat]]
        )
        try:  # a version of a bot: its owner's (or the admin's) to pick, and only one that plays
            versions = await asyncio.to_thread(
                check_picks, self.db, table.picks, lambda owner: caller.is_admin or caller.owns(owner)
            )
        except LadderError as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        # Never on the ladder; the server may rate an author's (never a guest's) match apart.
        with_people = self.rate_people and not guest
        rating = "rated with people only" if with_people else "never rated"
        why = f"with people: {seat_name} played seat {table.seat} (a person's match is {rating})"
        try:
            ticket = await asyncio.to_thread(
                create_match, self.db, table.game, table.seats, table.seed, table.options, why, with_people
            )
        except LadderError as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        ticket = await asyncio.to_thread(mark_running, self.db, ticket.match_id)
        seated = zip(ticket.bot_ids, table.seats, strict=True)
        pinned = {bot_id: versions[name] for bot_id, name in seated if name in versions}
        entrants = await asyncio.to_thread(entrants_of, self.db, ticket.bot_ids, versions=pinned)
        entrants[table.seat] = dataclasses.replace(entrants[table.seat], control=table.control)
        session = BotSession(Identity(bot=seat_name, bot_id=person_id), games=(table.game,), capacity=1)
        session.follows_moves = True  # the other seats' moves show as they happen (``SeatUpdate``)
        self.pool.admit(session)
        relay = asyncio.create_task(_relay(requests, session), name=f"person {seat_name}'s replies")
        opponents = {bot for seat, bot in enumerate(ticket.bot_ids) if seat != table.seat}

        async def play() -> None:
            try:
                await play_ticket(self.db, self.roster, ticket, self.default_control, entrants=entrants)
            finally:  # the bots were started for this table only
                self.pool.remove(session)  # ends the stream, once all the match said is sent
                await self.roster.retire(opponents)

        match = asyncio.create_task(play(), name=f"match {ticket.match_id} with a person")
        _PLAYING.add(match)
        match.add_done_callback(_PLAYING.discard)
        # The call ending for any reason is the person leaving: a cancelled call may leave this
        # generator parked at its ``yield`` (its ``finally`` only runs once it is collected).
        context.add_done_callback(lambda _: relay.cancel())
        try:
            while (message := await session.outbox.get()) is not None:
                yield message
            # Shielded: the call cancelled while it waits here (the person gone just as their
            # seat's stream ended) must not cancel the match, which plays on and is stored.
            await asyncio.shield(match)
        finally:
            relay.cancel()
            if not match.done():  # the stream went away: the seat is lost, the bots play on
                session.close()


async def _relay(requests: AsyncIterator[admin_pb2.PlayMessage], session: BotSession) -> None:
    """Hand the person's replies to their session as a bot's; the stream's end is their leaving,
    however it ends (a half-close, a cancel read as an error of any kind, this task cancelled)."""
    try:
        with contextlib.suppress(Exception):
            async for message in requests:
                if message.WhichOneof("message") == "reply":
                    session.on_message(arena_pb2.BotMessage(reply=message.reply))
    finally:
        session.close()


def _table(setup: admin_pb2.PlaySetup, seat_name: str) -> Table:
    game = get_game(setup.game)
    if not setup.opponents:
        raise InvalidRequestError("a table needs at least one bot to play against")
    players = len(setup.opponents) + 1
    if not game.spec.min_players <= players <= game.spec.max_players:
        spec = game.spec
        raise InvalidRequestError(
            f"{spec.name} is for {spec.min_players} to {spec.max_players} players, not {players}"
        )
    if setup.seat >= players:
        raise InvalidRequestError(f"seat must be from 0 to {players - 1}, not {setup.seat}")
    picks = [parse_pick(name) for name in setup.opponents]
    seats = [pick.bot for pick in picks]
    seats.insert(setup.seat, seat_name)
    options = options_from_proto(setup.options)
    seed = validation.seed(setup.seed) if setup.HasField("seed") else secrets.randbits(62)
    game.new(players, seed, options)  # refuse a bad option before anything is written
    return Table(
        game.spec.name,
        seats,
        picks,
        setup.seat,
        dict(options),
        human_control(setup.bank_ms, setup.increment_ms),
        seed,
    )
