"""Games, one-off matches (registered bots, commands or bot folders) and duels."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import uuid
from collections.abc import AsyncIterator

import grpc

from kingmaker.games.api import OptionsError
from kingmaker.games.registry import UnknownGameError, all_games, get_game
from kingmaker.ladder.bots import bots
from kingmaker.ladder.errors import InvalidRequestError
from kingmaker.ladder.matches import history
from kingmaker.ladder.matches.match_filter import MatchFilter
from kingmaker.ladder.matches.match_setup import create_match
from kingmaker.ladder.matches.matches import mark_running
from kingmaker.ladder.storage.db import Database
from kingmaker.sdk.codec import CodecError, options_from_proto
from kingmaker.sdk.sprt import Sprt
from kingmaker.server.grpc_abort import abort
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.scheduling import duels
from kingmaker.server.scheduling.duels import DuelSetup
from kingmaker.server.scheduling.rated import entrants_of, play_ticket
from kingmaker.server.seats.roster import Entrant
from kingmaker.server.services import convert, validation
from kingmaker.server.services.admin.base import CALLER, Context, permitted
from kingmaker.server.services.admin.match_records import MatchRecords, summary
from kingmaker.v1 import admin_pb2


class MatchRpcs(MatchRecords):
    """Games, one-off matches and duels."""

    @permitted
    async def ListGames(
        self, request: admin_pb2.ListGamesRequest, context: Context
    ) -> admin_pb2.ListGamesResponse:
        return admin_pb2.ListGamesResponse(games=[convert.game_info(game) for game in all_games()])

    @permitted
    async def RunMatch(self, request: admin_pb2.RunMatchRequest, context: Context) -> admin_pb2.MatchRecord:
        try:
            game = get_game(request.game)
            options = options_from_proto(request.options)
            control = (
                validation.time_control(request.time_control)
                if request.HasField("time_control")
                else self.default_control
            )
            seed = validation.seed(request.seed) if request.HasField("seed") else secrets.randbits(62)
            game.new(len(request.seats), seed, options)
            ad_hoc = [bool(seat.command or seat.path) for seat in request.seats]
            if any(ad_hoc) and not all(ad_hoc):
                raise ValueError("a match takes either registered bots or commands, not both")
            caller = CALLER.get()
            if any(ad_hoc) and not caller.is_admin:
                await abort(
                    context,
                    grpc.StatusCode.PERMISSION_DENIED,
                    "only the admin runs commands on the server; an author plays registered bots",
                )
            entrants = [entrant(seat) for seat in request.seats if not seat.path] if all(ad_hoc) else []
        except (UnknownGameError, OptionsError, CodecError, ValueError, InvalidRequestError) as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        names = [seat.bot for seat in request.seats]
        await self._refuse_without_jail(context, names, ad_hoc=all(ad_hoc))
        with self.one_off.taken(caller, "match"):  # (refused past the author's bound)
            if all(ad_hoc) and any(seat.path for seat in request.seats):  # bot folders: built first
                assert self.submissions is not None
                commands = iter(entrants)
                entrants = [
                    await self.submissions.folder_entrant(seat, context) if seat.path else next(commands)
                    for seat in request.seats
                ]
            if not entrants:  # registered bots: a one-off match, stored and rated like any other
                # An author's match is never rated: an author cannot pick the ladder's opponents.
                unrated = (
                    f"unrated: asked for by {caller.describe()}"
                    if request.unrated or not caller.is_admin
                    else None
                )
                ticket = await asyncio.to_thread(
                    create_match, self.db, game.spec.name, names, seed, options, unrated
                )
                ticket = await asyncio.to_thread(mark_running, self.db, ticket.match_id)
                try:
                    await play_ticket(self.db, self.roster, ticket, control)
                finally:  # the bots were started for this match only: do not leave them running
                    await self.roster.retire(set(ticket.bot_ids))
                return await self._stored(ticket.match_id, with_log=True)
            match_id = uuid.uuid4().hex[:12]
            report = await play_match(self.roster, game.spec.name, entrants, seed, options, control, match_id)
            self.archive.add(report)
            return await self._unstored(report)

    @permitted
    async def GetMatch(self, request: admin_pb2.GetMatchRequest, context: Context) -> admin_pb2.MatchRecord:
        report = self.archive.get(request.match_id)
        if report is not None:
            return await self._unstored(report)
        return await self._stored(validation.match_id(request.match_id), with_log=True)

    @permitted
    async def ListMatches(
        self, request: admin_pb2.ListMatchesRequest, context: Context
    ) -> admin_pb2.ListMatchesResponse:
        limit = validation.page_size(request.limit)
        before = validation.page_token_id(request.page_token)
        # The first page starts with this process's unstored matches between commands (`match
        # run --seat`), newest first: they belong to no league and are kept until the server stops.
        # (They are the admin's: nobody else sees them.)
        caller = CALLER.get()
        only = MatchFilter(request.bot, request.opponent, request.version, request.result)
        only.check()
        listed = (
            not (request.page_token or request.league or request.with_people or only.bot) and caller.is_admin
        )
        unstored = self.archive.newest(request.game or None, limit) if listed else []
        room = limit - len(unstored)
        found = await asyncio.to_thread(
            history.list_matches,
            self.db,
            request.league or None,
            request.game or None,
            room + 1,
            before,
            request.with_people,
            only,
        )
        page, more = found[:room], len(found) > room
        stored = [convert.stored_record(summary) for summary in page]
        for record in stored:
            record.revealed = True
        if not caller.is_admin:
            await self._page_for_caller(caller, stored, page)
        return admin_pb2.ListMatchesResponse(
            matches=[summary(convert.report_record(report)) for report in unstored] + stored,
            next_page_token=str(page[-1].match_id) if more and page else "",
        )

    @permitted
    async def Duel(
        self, request: admin_pb2.DuelRequest, context: Context
    ) -> AsyncIterator[admin_pb2.DuelProgress]:
        try:
            game = get_game(request.game)
            players = request.players or game.spec.min_players
            options = options_from_proto(request.options)
            game.new(players, 1, options)  # a bad seat count or option fails here, before any bot starts
            test = Sprt(
                request.elo0,
                request.elo1 if request.elo1 or request.elo0 else 50.0,
                request.alpha or 0.05,
                request.beta or 0.05,
            )
            control = (
                validation.time_control(request.time_control)
                if request.HasField("time_control")
                else self.default_control
            )
            first_seed = validation.seed(request.seed) if request.HasField("seed") else secrets.randbits(40)
            max_matches = validation.duel_matches(request.max_matches)
        except (UnknownGameError, OptionsError, CodecError, ValueError) as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        a, b = await asyncio.to_thread(duellists, self.db, game.spec.name, request.a, request.b)
        await self._refuse_without_jail(context, [a.name, b.name])
        setup = DuelSetup(game.spec.name, players, test, first_seed, max_matches, options, control)
        with self.one_off.taken(CALLER.get(), "duel"):  # (refused past the author's bound)
            try:
                async for state in duels.duel(self.roster, a, b, setup):
                    yield convert.duel_progress(state, test)
            finally:  # the bots were started for this duel only
                await self.roster.retire({bot for bot in (a.bot_id, b.bot_id) if bot is not None})


def entrant(seat: admin_pb2.MatchSeat) -> Entrant:
    """An ad hoc seat: a command the server runs for this match only."""
    program = seat.command[0]
    # A relative path runs from the seat's working directory, as the launcher starts it there.
    path = os.path.join(seat.working_directory or "", program)
    found = shutil.which(program) if "/" not in program else (path if os.access(path, os.X_OK) else None)
    if found is None:
        where = f" in {seat.working_directory}" if seat.working_directory and "/" in program else ""
        raise ValueError(f"cannot start {program!r}{where}: no such executable")
    name = seat.bot or program.rsplit("/", 1)[-1]
    return Entrant(name=name, command=tuple(seat.command), cwd=seat.working_directory or None)


def duellists(db: Database, game: str, a: str, b: str) -> tuple[Entrant, Entrant]:
    """The two seats of a duel from "NAME" (its active version) or "NAME@VERSION"; each an active
    bot that plays the game (``InvalidRequestError``, ``NotFoundError`` otherwise)."""
    found = []
    for spec in (a, b):
        name, _, version = spec.partition("@")
        bot = bots.get_bot(db, name)
        if game not in bot.games:
            raise InvalidRequestError(
                f"{name} does not play {game} (it plays {', '.join(bot.games) or 'nothing'})"
            )
        if not bot.active:
            raise InvalidRequestError(f"{name} is not active: it is disabled or suspended")
        if version and (not version.isdigit() or int(version) != (bot.active_version or 0)):
            raise InvalidRequestError(
                f"{spec}: a duel plays a bot's active version (no other version runs yet)"
            )
        found.append(entrants_of(db, (bot.id,))[0])
    return found[0], found[1]
