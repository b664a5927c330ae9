"""The Admin service the command line talks to. Every call needs the admin token.

Each method translates: it checks the request, calls the ladder (in a worker thread, since the
database is blocking) or the match machinery, and turns the answer into messages. Ladder
errors become the matching gRPC status with the ladder's own sentence as details.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import os
import secrets
import shutil
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeAlias, TypeVar

import grpc

from kingmaker.games.api import OptionsError
from kingmaker.games.registry import UnknownGameError, all_games, get_game
from kingmaker.ladder import bot_stats, bots, history, league_pool, leagues, membership, standings
from kingmaker.ladder.db import Database
from kingmaker.ladder.errors import ConflictError, InvalidRequestError, LadderError, NotFoundError
from kingmaker.ladder.matches import create_match, mark_running, match_log
from kingmaker.ladder.models import MatchStatus
from kingmaker.sdk.codec import CodecError, options_from_proto
from kingmaker.server.archive import MemoryArchive
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.launcher import confinement, jail_refusal
from kingmaker.server.matches import play_match
from kingmaker.server.rated import play_ticket
from kingmaker.server.roster import Entrant, Roster
from kingmaker.server.scheduler import LeagueRunner, Progress
from kingmaker.server.services import convert, validation
from kingmaker.server.services.errors import abort
from kingmaker.server.sessions import SessionPool
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, arena_pb2

T = TypeVar("T")
Context: TypeAlias = grpc.aio.ServicerContext

_STATUS = {
    NotFoundError: grpc.StatusCode.NOT_FOUND,
    ConflictError: grpc.StatusCode.ALREADY_EXISTS,
}


def admin_only(method: Callable[..., T]) -> Callable[..., T]:
    """Refuse the call with UNAUTHENTICATED unless it carries the admin token."""

    def authorised(self: AdminService, context: Context) -> bool:
        metadata = dict(context.invocation_metadata() or ())
        offered = str(metadata.get("authorization", "")).removeprefix("Bearer ").strip()
        return hmac.compare_digest(offered.encode(), self.admin_token.encode())

    if asyncio.iscoroutinefunction(method):

        @functools.wraps(method)
        async def checked(self: AdminService, request: Any, context: Context) -> Any:
            if not authorised(self, context):
                await abort(context, grpc.StatusCode.UNAUTHENTICATED, "missing or wrong admin token")
            try:
                return await method(self, request, context)
            except LadderError as error:
                await abort(context, _STATUS.get(type(error), grpc.StatusCode.INVALID_ARGUMENT), str(error))

        return checked  # type: ignore[return-value]

    @functools.wraps(method)
    async def streamed(self: AdminService, request: Any, context: Context) -> AsyncIterator[Any]:
        if not authorised(self, context):
            await abort(context, grpc.StatusCode.UNAUTHENTICATED, "missing or wrong admin token")
        try:
            async for item in method(self, request, context):  # type: ignore[attr-defined]
                yield item
        except LadderError as error:
            await abort(context, _STATUS.get(type(error), grpc.StatusCode.INVALID_ARGUMENT), str(error))

    return streamed  # type: ignore[return-value]


class AdminService(admin_pb2_grpc.AdminServicer):
    def __init__(
        self,
        admin_token: str,
        db: Database,
        pool: SessionPool,
        roster: Roster,
        league_runner: LeagueRunner,
        archive: MemoryArchive,
        default_control: TimeControl,
    ) -> None:
        self.admin_token = admin_token
        self.db = db
        self.pool = pool
        self.roster = roster
        self.league_runner = league_runner
        self.archive = archive
        self.default_control = default_control

    # ---- games and matches -------------------------------------------------------------------

    @admin_only
    async def ListGames(
        self, request: admin_pb2.ListGamesRequest, context: Context
    ) -> admin_pb2.ListGamesResponse:
        return admin_pb2.ListGamesResponse(games=[convert.game_info(game) for game in all_games()])

    @admin_only
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
            ad_hoc = [bool(seat.command) for seat in request.seats]
            if any(ad_hoc) and not all(ad_hoc):
                raise ValueError("a match takes either registered bots or commands, not both")
            entrants = [entrant(seat) for seat in request.seats] if all(ad_hoc) else []
        except (UnknownGameError, OptionsError, CodecError, ValueError, InvalidRequestError) as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        names = [seat.bot for seat in request.seats]
        await self._refuse_without_jail(context, names, ad_hoc=bool(entrants))
        if not entrants:  # registered bots: a one-off match, stored and rated like any other
            ticket = await asyncio.to_thread(create_match, self.db, game.spec.name, names, seed, options)
            ticket = await asyncio.to_thread(mark_running, self.db, ticket.match_id)
            try:
                await play_ticket(self.db, self.roster, ticket, control)
            finally:  # the bots were started for this match only: do not leave them running
                await self.roster.retire(set(ticket.bot_ids))
            return await self._stored(ticket.match_id, with_log=True)
        match_id = uuid.uuid4().hex[:12]
        report = await play_match(self.roster, game.spec.name, entrants, seed, options, control, match_id)
        self.archive.add(report)
        return convert.report_record(report)

    @admin_only
    async def GetMatch(self, request: admin_pb2.GetMatchRequest, context: Context) -> admin_pb2.MatchRecord:
        report = self.archive.get(request.match_id)
        if report is not None:
            return convert.report_record(report)
        return await self._stored(validation.match_id(request.match_id), with_log=True)

    @admin_only
    async def ListMatches(
        self, request: admin_pb2.ListMatchesRequest, context: Context
    ) -> admin_pb2.ListMatchesResponse:
        limit = validation.page_size(request.limit)
        before = validation.page_token_id(request.page_token)
        # The first page starts with this process's unstored matches between commands (`match
        # run --seat`), newest first: they belong to no league and are kept until the server stops.
        unstored = (
            [] if request.page_token or request.league else self.archive.newest(request.game or None, limit)
        )
        room = limit - len(unstored)
        found = await asyncio.to_thread(
            history.list_matches, self.db, request.league or None, request.game or None, room + 1, before
        )
        page, more = found[:room], len(found) > room
        return admin_pb2.ListMatchesResponse(
            matches=[_summary(convert.report_record(report)) for report in unstored]
            + [convert.stored_record(summary) for summary in page],
            next_page_token=str(page[-1].match_id) if more and page else "",
        )

    async def _stored(self, match_id: int, with_log: bool) -> admin_pb2.MatchRecord:
        summary = await asyncio.to_thread(history.match_summary, self.db, match_id)
        log = None
        if with_log and summary.status == MatchStatus.FINISHED:
            log = await asyncio.to_thread(match_log, self.db, match_id)
        return convert.stored_record(summary, log)

    # ---- bots --------------------------------------------------------------------------------

    @admin_only
    async def AddBot(self, request: admin_pb2.AddBotRequest, context: Context) -> admin_pb2.AddBotResponse:
        if request.check and request.command:
            # Launch it before registering anything, so a bot that cannot start is not registered.
            command = Entrant(
                request.name, command=tuple(request.command), cwd=request.working_directory or None
            )
            ok, detail, tail = await self.roster.check(command)
            if not ok:
                await abort(
                    context, grpc.StatusCode.FAILED_PRECONDITION, _check_failure(request.name, detail, tail)
                )
        bot, token = await asyncio.to_thread(
            bots.register_bot,
            self.db,
            request.name,
            list(request.games),
            list(request.command) or None,
            request.working_directory or None,
        )
        return admin_pb2.AddBotResponse(bot=convert.bot_message(bot), token=token)

    @admin_only
    async def ListBots(
        self, request: admin_pb2.ListBotsRequest, context: Context
    ) -> admin_pb2.ListBotsResponse:
        limit = validation.page_size(request.limit, default=validation.MAX_PAGE)
        after = request.page_token or None
        found = await asyncio.to_thread(bots.list_bots, self.db, request.game or None, limit + 1, after)
        page, more = found[:limit], len(found) > limit
        return admin_pb2.ListBotsResponse(
            bots=[convert.bot_message(bot, self._connected(bot.id)) for bot in page],
            next_page_token=page[-1].name if more else "",
        )

    @admin_only
    async def GetBot(self, request: admin_pb2.GetBotRequest, context: Context) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.get_bot, self.db, request.name)
        message = convert.bot_message(bot, self._connected(bot.id))
        if bot.command is not None and self.roster.sandbox is not None:
            message.confinement = confinement(self.roster.sandbox)
        return message

    @admin_only
    async def GetBotStats(self, request: admin_pb2.GetBotRequest, context: Context) -> admin_pb2.BotStats:
        record = await asyncio.to_thread(bot_stats.bot_record, self.db, request.name)
        return convert.bot_stats(record)

    @admin_only
    async def SetBotEnabled(
        self, request: admin_pb2.SetBotEnabledRequest, context: Context
    ) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.set_enabled, self.db, request.name, request.enabled)
        if not bot.enabled:  # a disabled bot's open streams end now, not at their next match
            for session in [s for s in self.pool.sessions if s.identity.bot_id == bot.id]:
                self.pool.end(session, arena_pb2.ERROR_CODE_UNAUTHENTICATED, f"bot {bot.name} was disabled")
        return convert.bot_message(bot, self._connected(bot.id))

    @admin_only
    async def RotateToken(
        self, request: admin_pb2.RotateTokenRequest, context: Context
    ) -> admin_pb2.RotateTokenResponse:
        token = await asyncio.to_thread(bots.rotate_token, self.db, request.name)
        bot = await asyncio.to_thread(bots.get_bot, self.db, request.name)
        # Streams opened with the old token end now, not when they next disconnect. (Bots the
        # server launched hold one-time launch tokens, untouched by this.)
        for session in [s for s in self.pool.sessions if s.identity.bot_id == bot.id]:
            if session.identity.launch_key is None:
                self.pool.end(session, arena_pb2.ERROR_CODE_UNAUTHENTICATED, "the bot's token was rotated")
        return admin_pb2.RotateTokenResponse(token=token)

    @admin_only
    async def CheckBot(
        self, request: admin_pb2.CheckBotRequest, context: Context
    ) -> admin_pb2.CheckBotResponse:
        bot = await asyncio.to_thread(bots.get_bot, self.db, request.name)
        if bot.command is None:
            await abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"{bot.name} is a remote bot: it connects itself",
            )
        assert bot.command is not None
        ok, detail, tail = await self.roster.check(
            Entrant(bot.name, command=bot.command, cwd=bot.working_dir)
        )
        return admin_pb2.CheckBotResponse(ok=ok, detail=detail, stderr_tail=tail)

    @admin_only
    async def ReinstateBot(
        self, request: admin_pb2.ReinstateBotRequest, context: Context
    ) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.reinstate, self.db, request.name)
        return convert.bot_message(bot, self._connected(bot.id))

    @admin_only
    async def EditBot(self, request: admin_pb2.EditBotRequest, context: Context) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(
            functools.partial(
                bots.edit_bot,
                self.db,
                request.name,
                command=list(request.command.argv) if request.HasField("command") else None,
                working_dir=request.working_directory if request.HasField("working_directory") else None,
                games=list(request.games) or None,
            )
        )
        # Processes kept from before run the old command: start afresh next time.
        await self.roster.retire({bot.id})
        return convert.bot_message(bot, self._connected(bot.id))

    @admin_only
    async def RemoveBot(self, request: admin_pb2.RemoveBotRequest, context: Context) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.retire_bot, self.db, request.name)
        for session in [s for s in self.pool.sessions if s.identity.bot_id == bot.id]:
            self.pool.end(session, arena_pb2.ERROR_CODE_UNAUTHENTICATED, f"bot {bot.name} was removed")
        await self.roster.retire({bot.id})
        return convert.bot_message(bot)

    def _connected(self, bot_id: int) -> bool:
        return any(session.identity.bot_id == bot_id for session in self.pool.sessions)

    # ---- leagues and the ladder --------------------------------------------------------------

    @admin_only
    async def CreateLeague(
        self, request: admin_pb2.CreateLeagueRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        try:
            game = get_game(request.game)
            options = options_from_proto(request.options)
        except (UnknownGameError, CodecError) as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        info = await asyncio.to_thread(
            leagues.create_league,
            self.db,
            request.name,
            request.game,
            list(request.bots),
            format=request.format or "round_robin",
            players=request.players or game.spec.min_players,
            seed=validation.seed(request.seed) if request.HasField("seed") else None,
            duplicate=request.duplicate,
            rounds=request.rounds or 1,
            options=options,
            challenger=request.challenger or None,
            max_matches=request.max_matches or None,
            time_budget_s=request.time_budget_seconds or None,
        )
        return await self._league(info.name)

    @admin_only
    async def RunLeague(
        self, request: admin_pb2.RunLeagueRequest, context: Context
    ) -> AsyncIterator[admin_pb2.LeagueProgress]:
        if self._jail_refusal() is not None:
            info = await asyncio.to_thread(leagues.get_league, self.db, request.name)
            named = await asyncio.to_thread(bots.names_of, self.db, info.bot_ids)
            await self._refuse_without_jail(context, list(named.values()))
        async for progress in self.league_runner.watch(
            request.name, validation.concurrency(request.concurrency)
        ):
            yield await self._progress(progress)

    @admin_only
    async def GetLeague(self, request: admin_pb2.GetLeagueRequest, context: Context) -> admin_pb2.LeagueInfo:
        return await self._league(request.name)

    @admin_only
    async def RerunLeague(
        self, request: admin_pb2.RerunLeagueRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        old = await asyncio.to_thread(leagues.get_league, self.db, request.name)
        info = await asyncio.to_thread(leagues.rerun_league, self.db, old.id, request.new_name)
        return await self._league(info.name)

    @admin_only
    async def ListLeagues(
        self, request: admin_pb2.ListLeaguesRequest, context: Context
    ) -> admin_pb2.ListLeaguesResponse:
        limit = validation.page_size(request.limit, default=validation.MAX_PAGE)
        after = validation.page_token_id(request.page_token)
        found = await asyncio.to_thread(leagues.list_leagues, self.db, limit + 1, after)
        page, more = found[:limit], len(found) > limit
        return admin_pb2.ListLeaguesResponse(
            leagues=[await self._league(info.name) for info in page],
            next_page_token=str(page[-1].id) if more else "",
        )

    @admin_only
    async def PauseLeague(
        self, request: admin_pb2.LeagueControlRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        await asyncio.to_thread(leagues.pause_league, self.db, request.name)
        return await self._league(request.name)

    @admin_only
    async def ResumeLeague(
        self, request: admin_pb2.LeagueControlRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        info = await asyncio.to_thread(leagues.get_league, self.db, request.name)
        if info.finished:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, f"league {info.name!r} is finished")
        await self.league_runner.start(request.name)
        return await self._league(request.name)

    @admin_only
    async def StopLeague(
        self, request: admin_pb2.LeagueControlRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        await asyncio.to_thread(leagues.stop_league, self.db, request.name)
        return await self._league(request.name)

    @admin_only
    async def JoinLeague(
        self, request: admin_pb2.LeagueMemberRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        info = await asyncio.to_thread(membership.join_league, self.db, request.name, request.bot)
        await self.league_runner.entrants_changed(info.id)
        return await self._league(request.name)

    @admin_only
    async def LeaveLeague(
        self, request: admin_pb2.LeagueMemberRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        info = await asyncio.to_thread(membership.leave_league, self.db, request.name, request.bot)
        await self.league_runner.entrants_changed(info.id)
        return await self._league(request.name)

    @admin_only
    async def GetLeaguePairs(
        self, request: admin_pb2.GetLeagueRequest, context: Context
    ) -> admin_pb2.LeaguePairsResponse:
        info = await asyncio.to_thread(leagues.get_league, self.db, request.name)
        pairs = await asyncio.to_thread(league_pool.league_pairs, self.db, info.id)
        return admin_pb2.LeaguePairsResponse(
            pairs=[
                admin_pb2.LeaguePair(bot=p.bot, other=p.other, planned=p.planned, played=p.played)
                for p in pairs
            ]
        )

    @admin_only
    async def GetStandings(
        self, request: admin_pb2.GetStandingsRequest, context: Context
    ) -> admin_pb2.GetStandingsResponse:
        await _require_game(context, request.game)
        limit = validation.page_size(request.limit, default=validation.TOP_STANDINGS)
        offset = validation.offset(request.offset)
        rows = await asyncio.to_thread(standings.standings, self.db, request.game, limit, offset)
        total = await asyncio.to_thread(standings.ladder_size, self.db, request.game)
        return admin_pb2.GetStandingsResponse(
            game=request.game, standings=[convert.standing_message(r) for r in rows], total=total
        )

    @admin_only
    async def GetRatingHistory(
        self, request: admin_pb2.GetRatingHistoryRequest, context: Context
    ) -> admin_pb2.GetRatingHistoryResponse:
        await _require_game(context, request.game)
        top = validation.page_size(request.top, default=5)
        series = await asyncio.to_thread(standings.rating_history, self.db, request.game, top)
        return admin_pb2.GetRatingHistoryResponse(
            series=[convert.rating_series(bot, points) for bot, points in series.items()]
        )

    def _jail_refusal(self) -> str | None:
        return jail_refusal(self.roster.sandbox) if self.roster.sandbox is not None else None

    async def _refuse_without_jail(self, context: Context, names: list[str], ad_hoc: bool = False) -> None:
        """Secure by default: nothing starts that would launch a bot with no jail to run it in
        (the launcher would refuse each bot anyway; this says so before any match begins)."""
        refusal = self._jail_refusal()
        if refusal is None:
            return
        for name in names if not ad_hoc else []:
            try:
                bot = await asyncio.to_thread(bots.get_bot, self.db, name)
            except LadderError:
                continue  # the request's own check reports an unknown bot
            ad_hoc = ad_hoc or bot.command is not None
        if ad_hoc:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, refusal)

    async def _league(self, name: str) -> admin_pb2.LeagueInfo:
        info = await asyncio.to_thread(leagues.get_league, self.db, name)
        counts = await asyncio.to_thread(leagues.league_progress, self.db, info.id)
        named = await asyncio.to_thread(bots.names_of, self.db, info.bot_ids)
        message = convert.league_message(info, named, counts)
        state = self.league_runner.state(info.id)
        message.in_play, message.held_back = state.in_play, state.held_back
        message.held_back_seconds, message.held_total_seconds = state.held_for_s, state.held_total_s
        message.matches_per_minute, message.waiting_reason = state.matches_per_minute, state.waiting
        message.server_lag_ms, message.lag_limit_ms = self._server_lag_ms(), self._lag_limit_ms()
        return message

    def _server_lag_ms(self) -> float:
        admission = self.league_runner.admission
        return admission.recent_ms() if admission is not None else 0.0

    def _lag_limit_ms(self) -> float:
        admission = self.league_runner.admission
        return admission.limit_ms if admission is not None else 0.0

    async def _progress(self, progress: Progress) -> admin_pb2.LeagueProgress:
        counts = progress.counts
        message = admin_pb2.LeagueProgress(
            league=progress.league,
            finished=counts.get(MatchStatus.FINISHED, 0),
            running=counts.get(MatchStatus.RUNNING, 0),
            waiting=counts.get(MatchStatus.SCHEDULED, 0),
            void=counts.get(MatchStatus.VOID, 0),
            done=progress.done,
            reason=progress.reason,
            server_lag_ms=self._server_lag_ms(),
            lag_limit_ms=self._lag_limit_ms(),
        )
        if not progress.done:
            state = self.league_runner.state(progress.league_id)
            message.held_back, message.held_back_seconds = state.held_back, state.held_for_s
            message.matches_per_minute, message.waiting_reason = state.matches_per_minute, state.waiting
        if progress.last is not None:
            message.last.CopyFrom(await self._stored(progress.last.match_id, with_log=False))
        return message


def _summary(record: admin_pb2.MatchRecord) -> admin_pb2.MatchRecord:
    """A record as a listing holds it: without its decisions and digests."""
    del record.decisions[:]
    del record.observation_digests[:]
    return record


async def _require_game(context: Context, name: str) -> None:
    """End the call with INVALID_ARGUMENT unless ``name`` is a registered game."""
    try:
        get_game(name)
    except UnknownGameError as error:
        await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))


def _check_failure(name: str, detail: str, stderr_tail: str) -> str:
    lines = [line for line in stderr_tail.strip().splitlines() if line.strip()]
    said = f"; its stderr ends: {lines[-1].strip()[:300]}" if lines else ""
    return f"bot {name} did not start: {detail}{said} (register it anyway with --no-check)"


def new_admin_token() -> str:
    return secrets.token_urlsafe(32)


def entrant(seat: admin_pb2.MatchSeat) -> Entrant:
    """An ad hoc seat: a command the server runs for this match only."""
    program = seat.command[0]
    found = (
        shutil.which(program) if "/" not in program else (program if os.access(program, os.X_OK) else None)
    )
    if found is None:
        raise ValueError(f"cannot start {program!r}: no such executable")
    name = seat.bot or program.rsplit("/", 1)[-1]
    return Entrant(name=name, command=tuple(seat.command), cwd=seat.working_directory or None)
