"""The Admin service the command line talks to. Who may call what is ``permissions.PERMISSIONS``.

Each method translates: it checks the request, calls the ladder (in a worker thread, since the
database is blocking) or the match machinery, and turns the answer into messages. Ladder
errors become the matching gRPC status with the ladder's own sentence as details.
"""

from __future__ import annotations

import asyncio
import functools
import os
import secrets
import shutil
import uuid
from collections.abc import AsyncIterator, Callable
from contextvars import ContextVar
from typing import Any, TypeAlias, TypeVar

import grpc

from kingmaker.games.api import OptionsError
from kingmaker.games.registry import UnknownGameError, all_games, get_game
from kingmaker.ladder import (
    authors,
    bot_stats,
    bots,
    bounds,
    history,
    league_pool,
    leagues,
    membership,
    seat_logs,
    secrecy,
    standings,
)
from kingmaker.ladder.db import Database
from kingmaker.ladder.errors import (
    ConflictError,
    ForbiddenError,
    InvalidRequestError,
    LadderError,
    NotFoundError,
)
from kingmaker.ladder.matches import create_match, mark_running, match_log
from kingmaker.ladder.models import MatchStatus
from kingmaker.ladder.records import LeagueInfo
from kingmaker.sdk.codec import CodecError, options_from_proto
from kingmaker.sdk.sprt import Sprt
from kingmaker.server import duels
from kingmaker.server.archive import MemoryArchive
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.duels import DuelSetup
from kingmaker.server.launcher import confinement, jail_refusal
from kingmaker.server.matches import play_match
from kingmaker.server.rated import entrants_of, play_ticket
from kingmaker.server.referee import MatchReport
from kingmaker.server.roster import Entrant, Roster
from kingmaker.server.scheduler import LeagueRunner, Progress
from kingmaker.server.services import convert, validation
from kingmaker.server.services.errors import abort
from kingmaker.server.services.permissions import (
    ADMIN,
    ANYONE,
    Caller,
    Denied,
    Role,
    bearer,
    check_bots,
    check_rule,
    is_admin_token,
)
from kingmaker.server.services.submissions import SubmissionService
from kingmaker.server.sessions import SessionPool
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, arena_pb2

T = TypeVar("T")
Context: TypeAlias = grpc.aio.ServicerContext

_STATUS = {
    NotFoundError: grpc.StatusCode.NOT_FOUND,
    ConflictError: grpc.StatusCode.ALREADY_EXISTS,
    ForbiddenError: grpc.StatusCode.PERMISSION_DENIED,
}


CALLER: ContextVar[Caller] = ContextVar("caller", default=ANYONE)
"""Who makes the call being served (set by ``permitted`` for the method's own task)."""


def permitted(method: Callable[..., T]) -> Callable[..., T]:
    """Check the call against the permission table before the method runs (``permissions``),
    make the caller known to it (``CALLER``), and turn ladder errors into statuses."""
    name = method.__name__

    async def check(self: AdminService, request: Any, context: Context) -> None:
        try:
            caller = await self.caller(context)
            permission = check_rule(name, caller)
            if permission.bots is not None and not caller.is_admin:
                names = permission.bots(request)
                owners = await asyncio.to_thread(bots.owners_of, self.db, names)
                check_bots(name, caller, permission, owners)
        except Denied as denied:
            status = (
                grpc.StatusCode.UNAUTHENTICATED
                if denied.unauthenticated
                else grpc.StatusCode.PERMISSION_DENIED
            )
            await abort(context, status, str(denied))
        CALLER.set(caller)

    if asyncio.iscoroutinefunction(method):

        @functools.wraps(method)
        async def checked(self: AdminService, request: Any, context: Context) -> Any:
            await check(self, request, context)
            try:
                return await method(self, request, context)
            except LadderError as error:
                await abort(context, _STATUS.get(type(error), grpc.StatusCode.INVALID_ARGUMENT), str(error))

        return checked  # type: ignore[return-value]

    @functools.wraps(method)
    async def streamed(self: AdminService, request: Any, context: Context) -> AsyncIterator[Any]:
        await check(self, request, context)
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
        submissions: SubmissionService | None = None,
    ) -> None:
        self.admin_token = admin_token
        self.db = db
        self.pool = pool
        self.roster = roster
        self.league_runner = league_runner
        self.archive = archive
        self.default_control = default_control
        self.submissions = submissions

    async def caller(self, context: Context) -> Caller:
        """Who makes this call, by its token: ``Denied`` for a token the server does not know."""
        token = bearer(context.invocation_metadata())
        if not token:
            return ANYONE
        if is_admin_token(token, self.admin_token):
            return ADMIN
        author = await asyncio.to_thread(authors.authenticate_author, self.db, token)
        if author is None:
            raise Denied(
                "the server does not know this token (neither the admin's nor an enabled author's)",
                unauthenticated=True,
            )
        return Caller(Role.AUTHOR, author.id, author.name)

    # ---- games and matches -------------------------------------------------------------------

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

    async def _unstored(self, report: MatchReport) -> admin_pb2.MatchRecord:
        """A match played between commands, as RunMatch returns it and GetMatch finds it again."""
        record = convert.report_record(report)
        record.seat_logs.extend(convert.report_seat_logs(report))
        return await self._for_caller(record)

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
        listed = not (request.page_token or request.league) and caller.is_admin
        unstored = self.archive.newest(request.game or None, limit) if listed else []
        room = limit - len(unstored)
        found = await asyncio.to_thread(
            history.list_matches, self.db, request.league or None, request.game or None, room + 1, before
        )
        page, more = found[:room], len(found) > room
        stored = [convert.stored_record(summary) for summary in page]
        for record in stored:
            record.revealed = True
        if not caller.is_admin:
            await self._page_for_caller(caller, stored, page)
        return admin_pb2.ListMatchesResponse(
            matches=[_summary(convert.report_record(report)) for report in unstored] + stored,
            next_page_token=str(page[-1].match_id) if more and page else "",
        )

    async def _page_for_caller(
        self, caller: Caller, records: list[admin_pb2.MatchRecord], page: list[history.MatchSummary]
    ) -> None:
        """A page of matches as a caller other than the admin may see it: seeds of matches not
        over or with twins not over left out, stderr only of their own bots' seats."""
        keys = [(summary.match_id, summary.game, summary.seed, summary.status) for summary in page]
        hidden = await asyncio.to_thread(secrecy.hidden_among, self.db, keys)
        names = sorted({seat.bot for record in records for seat in record.seats})
        owners = await asyncio.to_thread(bots.owners_of, self.db, names)
        for record, summary in zip(records, page, strict=True):
            if summary.match_id in hidden:
                _hide_secrets(record, "")
            for seat in record.seats:
                if not caller.owns(owners.get(seat.bot)):
                    seat.stderr_tail = ""

    async def _stored(self, match_id: int, with_log: bool) -> admin_pb2.MatchRecord:
        summary = await asyncio.to_thread(history.match_summary, self.db, match_id)
        log = None
        record = convert.stored_record(summary, log)
        if with_log and summary.status == MatchStatus.FINISHED:
            log = await asyncio.to_thread(match_log, self.db, match_id)
            record = convert.stored_record(summary, log)
            logs = await asyncio.to_thread(seat_logs.match_logs, self.db, match_id)
            record.seat_logs.extend(convert.seat_log_message(seat_log) for seat_log in logs)
        return await self._for_caller(record)

    async def _for_caller(self, record: admin_pb2.MatchRecord) -> admin_pb2.MatchRecord:
        """What the caller may see of a match: a seat's stderr and logs only for its bot's owner;
        for anyone but the admin, nothing derived from its seed while it or a match sharing the
        seed is not over (``ladder.secrecy``)."""
        caller = CALLER.get()
        record.revealed = True
        if caller.is_admin:
            return record
        if record.match_id.isdigit():  # a stored match (unstored ones are the admin's own)
            verdict = await asyncio.to_thread(secrecy.secrets_verdict, self.db, int(record.match_id))
            if not verdict.shown:
                _hide_secrets(record, verdict.reason)
        owners = await asyncio.to_thread(bots.owners_of, self.db, [seat.bot for seat in record.seats])
        for seat in record.seats:
            if not caller.owns(owners.get(seat.bot)):
                seat.stderr_tail = ""
        kept = [log for log in record.seat_logs if caller.owns(owners.get(log.bot))]
        del record.seat_logs[:]
        record.seat_logs.extend(kept)
        return record

    def _bot_for_caller(self, message: admin_pb2.BotInfo, owner_id: int | None) -> admin_pb2.BotInfo:
        """What the caller may see of a bot: its command, folder and stderr only if it is theirs."""
        if not CALLER.get().owns(owner_id):
            for private in ("command", "working_directory", "suspended_stderr", "confinement"):
                message.ClearField(private)
        return message

    # ---- bots --------------------------------------------------------------------------------

    @permitted
    async def AddBot(self, request: admin_pb2.AddBotRequest, context: Context) -> admin_pb2.AddBotResponse:
        caller = CALLER.get()
        if (request.command or request.path) and not caller.is_admin:
            await abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                "an author adds a remote bot here (no command); a bot the server runs comes by "
                "`kingmaker submit`, which builds its code in the jail",
            )
        if request.path:  # a bot folder on this machine: built and validated as a submission
            assert self.submissions is not None
            return await self.submissions.add_from_folder(request, context, author_id=None)
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
            caller.author_id,
        )
        return admin_pb2.AddBotResponse(bot=convert.bot_message(bot), token=token)

    @permitted
    async def ListBots(
        self, request: admin_pb2.ListBotsRequest, context: Context
    ) -> admin_pb2.ListBotsResponse:
        limit = validation.page_size(request.limit, default=bounds.PAGE.high)
        after = request.page_token or None
        found = await asyncio.to_thread(bots.list_bots, self.db, request.game or None, limit + 1, after)
        page, more = found[:limit], len(found) > limit
        return admin_pb2.ListBotsResponse(
            bots=[
                self._bot_for_caller(convert.bot_message(bot, self._connected(bot.id)), bot.author_id)
                for bot in page
            ],
            next_page_token=page[-1].name if more else "",
        )

    @permitted
    async def GetBot(self, request: admin_pb2.GetBotRequest, context: Context) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.get_bot, self.db, request.name)
        connected = self._connected(bot.id)
        message = (  # with its newest version, where the server takes submissions
            await self.submissions.bot_message(bot, connected)
            if self.submissions is not None
            else convert.bot_message(bot, connected)
        )
        if bot.command is not None and self.roster.sandbox is not None:
            message.confinement = confinement(self.roster.sandbox)
        return self._bot_for_caller(message, bot.author_id)

    @permitted
    async def GetBotStats(self, request: admin_pb2.GetBotRequest, context: Context) -> admin_pb2.BotStats:
        record = await asyncio.to_thread(bot_stats.bot_record, self.db, request.name)
        return convert.bot_stats(record)

    @permitted
    async def SetBotEnabled(
        self, request: admin_pb2.SetBotEnabledRequest, context: Context
    ) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.set_enabled, self.db, request.name, request.enabled)
        if not bot.enabled:  # a disabled bot's open streams end now, not at their next match
            for session in [s for s in self.pool.sessions if s.identity.bot_id == bot.id]:
                self.pool.end(session, arena_pb2.ERROR_CODE_UNAUTHENTICATED, f"bot {bot.name} was disabled")
        return convert.bot_message(bot, self._connected(bot.id))

    @permitted
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

    @permitted
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

    @permitted
    async def ReinstateBot(
        self, request: admin_pb2.ReinstateBotRequest, context: Context
    ) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.reinstate, self.db, request.name)
        return convert.bot_message(bot, self._connected(bot.id))

    @permitted
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

    @permitted
    async def RemoveBot(self, request: admin_pb2.RemoveBotRequest, context: Context) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.retire_bot, self.db, request.name)
        for session in [s for s in self.pool.sessions if s.identity.bot_id == bot.id]:
            self.pool.end(session, arena_pb2.ERROR_CODE_UNAUTHENTICATED, f"bot {bot.name} was removed")
        await self.roster.retire({bot.id})
        return convert.bot_message(bot)

    @permitted
    async def GetBotLogs(
        self, request: admin_pb2.GetBotLogsRequest, context: Context
    ) -> admin_pb2.GetBotLogsResponse:
        await asyncio.to_thread(bots.get_bot, self.db, request.bot)  # NOT_FOUND for an unknown bot
        if request.match_id:
            match_id = validation.match_id(request.match_id)
            found = await asyncio.to_thread(seat_logs.match_logs, self.db, match_id)
            mine = [log for log in found if log.bot == request.bot]
            return admin_pb2.GetBotLogsResponse(logs=[convert.seat_log_message(log) for log in mine])
        limit = validation.page_size(request.limit, default=20)
        before = validation.page_token_id(request.page_token)
        found = await asyncio.to_thread(seat_logs.bot_logs, self.db, request.bot, limit + 1, before)
        page, more = found[:limit], len(found) > limit
        return admin_pb2.GetBotLogsResponse(
            logs=[convert.seat_log_message(log) for log in page],
            next_page_token=str(page[-1].match_id) if more else "",
        )

    # ---- submissions and versions (server/services/submissions.py; who may call each is there) --

    @permitted
    async def Submit(self, request: Any, context: Context) -> admin_pb2.VersionInfo:
        return await self._submissions.submit(request, context, author_id=CALLER.get().author_id)

    @permitted
    async def WatchVersion(
        self, request: admin_pb2.GetVersionRequest, context: Context
    ) -> AsyncIterator[admin_pb2.VersionInfo]:
        async for message in self._submissions.watch_version(
            request, context, private=await self._owns(request.bot)
        ):
            yield message

    @permitted
    async def GetVersion(
        self, request: admin_pb2.GetVersionRequest, context: Context
    ) -> admin_pb2.VersionInfo:
        return await self._submissions.get_version(request, private=await self._owns(request.bot))

    @permitted
    async def ListVersions(
        self, request: admin_pb2.ListVersionsRequest, context: Context
    ) -> admin_pb2.ListVersionsResponse:
        return await self._submissions.list_versions(request)

    @permitted
    async def RollbackBot(self, request: admin_pb2.RollbackBotRequest, context: Context) -> admin_pb2.BotInfo:
        return await self._submissions.rollback(request)

    @permitted
    async def SetLadderPolicy(
        self, request: admin_pb2.SetLadderPolicyRequest, context: Context
    ) -> admin_pb2.LadderPolicy:
        return await self._submissions.ladder_policy(request, context)

    async def _owns(self, bot: str) -> bool:
        """Whether the caller may see this bot's private parts (its build log, its stderr)."""
        owners = await asyncio.to_thread(bots.owners_of, self.db, [bot])
        return bot in owners and CALLER.get().owns(owners[bot])

    @property
    def _submissions(self) -> SubmissionService:
        assert self.submissions is not None, "the server has no submission pipeline"
        return self.submissions

    def _connected(self, bot_id: int) -> bool:
        return any(session.identity.bot_id == bot_id for session in self.pool.sessions)

    # ---- leagues and the ladder --------------------------------------------------------------

    @permitted
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
            live_delay_s=request.live_delay_seconds or None,
        )
        return await self._league(info.name)

    @permitted
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

    @permitted
    async def GetLeague(self, request: admin_pb2.GetLeagueRequest, context: Context) -> admin_pb2.LeagueInfo:
        return await self._league(request.name)

    @permitted
    async def RerunLeague(
        self, request: admin_pb2.RerunLeagueRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        old = await asyncio.to_thread(leagues.get_league, self.db, request.name)
        info = await asyncio.to_thread(leagues.rerun_league, self.db, old.id, request.new_name)
        return await self._league(info.name)

    @permitted
    async def ListLeagues(
        self, request: admin_pb2.ListLeaguesRequest, context: Context
    ) -> admin_pb2.ListLeaguesResponse:
        limit = validation.page_size(request.limit, default=bounds.PAGE.high)
        after = validation.page_token_id(request.page_token)
        found = await asyncio.to_thread(leagues.list_leagues, self.db, limit + 1, after)
        page, more = found[:limit], len(found) > limit
        return admin_pb2.ListLeaguesResponse(
            leagues=[await self._league(info.name) for info in page],
            next_page_token=str(page[-1].id) if more else "",
        )

    @permitted
    async def PauseLeague(
        self, request: admin_pb2.LeagueControlRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        await asyncio.to_thread(leagues.pause_league, self.db, request.name)
        return await self._league(request.name)

    @permitted
    async def ResumeLeague(
        self, request: admin_pb2.LeagueControlRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        info = await asyncio.to_thread(leagues.get_league, self.db, request.name)
        if info.finished:
            await abort(context, grpc.StatusCode.FAILED_PRECONDITION, f"league {info.name!r} is finished")
        await self.league_runner.start(request.name)
        return await self._league(request.name)

    @permitted
    async def StopLeague(
        self, request: admin_pb2.LeagueControlRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        await asyncio.to_thread(leagues.stop_league, self.db, request.name)
        return await self._league(request.name)

    @permitted
    async def JoinLeague(
        self, request: admin_pb2.LeagueMemberRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        return await self._change_entrants(membership.join_league, request)

    @permitted
    async def LeaveLeague(
        self, request: admin_pb2.LeagueMemberRequest, context: Context
    ) -> admin_pb2.LeagueInfo:
        return await self._change_entrants(membership.leave_league, request)

    async def _change_entrants(
        self, change: Callable[[Database, str, str], LeagueInfo], request: admin_pb2.LeagueMemberRequest
    ) -> admin_pb2.LeagueInfo:
        """A bot joins or leaves a ladder league; a run of it plans with its new entrants."""
        info = await asyncio.to_thread(change, self.db, request.name, request.bot)
        await self.league_runner.entrants_changed(info.id)
        return await self._league(request.name)

    @permitted
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

    @permitted
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

    @permitted
    async def GetRatingHistory(
        self, request: admin_pb2.GetRatingHistoryRequest, context: Context
    ) -> admin_pb2.GetRatingHistoryResponse:
        await _require_game(context, request.game)
        top = validation.page_size(request.top, default=5)
        series = await asyncio.to_thread(standings.rating_history, self.db, request.game, top)
        return admin_pb2.GetRatingHistoryResponse(
            series=[convert.rating_series(bot, points) for bot, points in series.items()]
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
        try:
            async for state in duels.duel(self.roster, a, b, setup):
                yield convert.duel_progress(state, test)
        finally:  # the bots were started for this duel only
            await self.roster.retire({bot for bot in (a.bot_id, b.bot_id) if bot is not None})

    # ---- authors ------------------------------------------------------------------------------

    @permitted
    async def WhoAmI(self, request: admin_pb2.WhoAmIRequest, context: Context) -> admin_pb2.WhoAmIResponse:
        caller = CALLER.get()
        response = admin_pb2.WhoAmIResponse(role=caller.role.value)
        if caller.role is Role.AUTHOR:
            author = await asyncio.to_thread(authors.get_author, self.db, caller.name)
            response.author.CopyFrom(convert.author_message(author))
        return response

    @permitted
    async def AddAuthor(
        self, request: admin_pb2.AddAuthorRequest, context: Context
    ) -> admin_pb2.AddAuthorResponse:
        quota = request.bot_quota if request.HasField("bot_quota") else authors.DEFAULT_BOT_QUOTA
        author, token = await asyncio.to_thread(authors.add_author, self.db, request.name, quota)
        return admin_pb2.AddAuthorResponse(author=convert.author_message(author), token=token)

    @permitted
    async def ListAuthors(
        self, request: admin_pb2.ListAuthorsRequest, context: Context
    ) -> admin_pb2.ListAuthorsResponse:
        limit = validation.page_size(request.limit, default=bounds.PAGE.high)
        found = await asyncio.to_thread(authors.list_authors, self.db, limit + 1, request.page_token or None)
        page, more = found[:limit], len(found) > limit
        return admin_pb2.ListAuthorsResponse(
            authors=[convert.author_message(author) for author in page],
            next_page_token=page[-1].name if more else "",
        )

    @permitted
    async def SetAuthorEnabled(
        self, request: admin_pb2.SetAuthorEnabledRequest, context: Context
    ) -> admin_pb2.AuthorInfo:
        author = await asyncio.to_thread(authors.set_author_enabled, self.db, request.name, request.enabled)
        return convert.author_message(author)

    @permitted
    async def SetAuthorQuota(
        self, request: admin_pb2.SetAuthorQuotaRequest, context: Context
    ) -> admin_pb2.AuthorInfo:
        author = await asyncio.to_thread(authors.set_bot_quota, self.db, request.name, request.bot_quota)
        return convert.author_message(author)

    @permitted
    async def RotateAuthorToken(
        self, request: admin_pb2.RotateAuthorTokenRequest, context: Context
    ) -> admin_pb2.RotateAuthorTokenResponse:
        token = await asyncio.to_thread(authors.rotate_author_token, self.db, request.name)
        return admin_pb2.RotateAuthorTokenResponse(token=token)

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
        message.workers.extend(convert.worker_load(load) for load in self.league_runner.executor.loads())
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


def _hide_secrets(record: admin_pb2.MatchRecord, reason: str) -> None:
    """Leave out of a match whatever tells its seed's draws: the seed, every decision, the
    observation digests and its seats' logs (a bot may print what it was shown)."""
    record.revealed = False
    record.seed = 0
    del record.decisions[:]
    del record.observation_digests[:]
    del record.seat_logs[:]
    record.status_reason = "; ".join(text for text in (record.status_reason, reason) if text)


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
