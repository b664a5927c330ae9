"""Bots: registering, showing, enabling, changing and removing them, and their seat logs."""

from __future__ import annotations

import asyncio
import functools

import grpc

from kingmaker.ladder import bounds
from kingmaker.ladder.bots import bots, versions
from kingmaker.ladder.matches import bot_stats, seat_logs, secrecy
from kingmaker.server.grpc_abort import abort
from kingmaker.server.jail.launcher import confinement
from kingmaker.server.seats.roster import Entrant
from kingmaker.server.services import convert, validation
from kingmaker.server.services.admin.base import CALLER, AdminBase, Context, permitted
from kingmaker.v1 import admin_pb2, arena_pb2


class BotRpcs(AdminBase):
    """Registering, showing, changing and removing bots, and their logs."""

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
        # Each bot's newest version, as GetBot gives it (one query for the page): before, the
        # console's list said "—" for a bot whose version 2 was building.
        latest = await asyncio.to_thread(versions.latest_versions, self.db, [bot.id for bot in page])
        messages = []
        for bot in page:
            message = convert.bot_message(bot, self._connected(bot.id))
            if bot.id in latest:
                message.latest_version, message.latest_status = latest[bot.id]
            messages.append(message)
        return admin_pb2.ListBotsResponse(bots=messages, next_page_token=page[-1].name if more else "")

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
        return message

    @permitted
    async def GetBotStats(self, request: admin_pb2.GetBotRequest, context: Context) -> admin_pb2.BotStats:
        record = await asyncio.to_thread(bot_stats.bot_record, self.db, request.name)
        return convert.bot_stats(record)

    @permitted
    async def SetBotEnabled(
        self, request: admin_pb2.SetBotEnabledRequest, context: Context
    ) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.set_enabled, self.db, request.name, request.enabled)
        if not bot.enabled:  # a disabled bot's open streams take no new match
            self._end_streams(bot.id, f"bot {bot.name} was disabled")
            await self.league_runner.executor.retire({bot.id})  # and its kept processes, everywhere
        return convert.bot_message(bot, self._connected(bot.id))

    @permitted
    async def RotateToken(
        self, request: admin_pb2.RotateTokenRequest, context: Context
    ) -> admin_pb2.RotateTokenResponse:
        token = await asyncio.to_thread(bots.rotate_token, self.db, request.name)
        bot = await asyncio.to_thread(bots.get_bot, self.db, request.name)
        # Streams opened with the old token take no new match, not only once they disconnect.
        # (Bots the server launched hold one-time launch tokens, untouched by this.)
        self._end_streams(bot.id, "the bot's token was rotated", launched=False)
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
        # Processes kept from before run the old command (here or in a worker): start afresh.
        await self.league_runner.executor.retire({bot.id})
        return convert.bot_message(bot, self._connected(bot.id))

    @permitted
    async def RemoveBot(self, request: admin_pb2.RemoveBotRequest, context: Context) -> admin_pb2.BotInfo:
        bot = await asyncio.to_thread(bots.retire_bot, self.db, request.name)
        self._end_streams(bot.id, f"bot {bot.name} was removed")
        await self.league_runner.executor.retire({bot.id})
        return convert.bot_message(bot)

    def _end_streams(self, bot_id: int | None, why: str, launched: bool = True) -> None:
        """End the bot's streams (``launched``: those of processes the server started too), telling
        it ``why``. The admin's word ends them now: their seats in running matches end aborted,
        which voids those matches (only the admin voids). An author's ends each once the matches
        it is in are over: they play out and count, as a loss if the bot stops answering, so
        disabling, removing or re-keying one's bot never undoes a result under way."""
        admin = CALLER.get().is_admin
        for session in self.pool.sessions_of(bot_id):
            if not launched and session.identity.launch_key is not None:
                continue
            if admin:
                self.pool.end(session, arena_pb2.ERROR_CODE_UNAUTHENTICATED, why)
            else:
                session.drain(arena_pb2.ERROR_CODE_UNAUTHENTICATED, why)

    @permitted
    async def GetBotLogs(
        self, request: admin_pb2.GetBotLogsRequest, context: Context
    ) -> admin_pb2.GetBotLogsResponse:
        await asyncio.to_thread(bots.get_bot, self.db, request.bot)  # NOT_FOUND for an unknown bot
        more = False
        if request.match_id:
            match_id = validation.match_id(request.match_id)
            found = await asyncio.to_thread(seat_logs.match_logs, self.db, match_id)
            page = [log for log in found if log.bot == request.bot]
        else:
            limit = validation.page_size(request.limit, default=20)
            before = validation.page_token_id(request.page_token)
            found = await asyncio.to_thread(seat_logs.bot_logs, self.db, request.bot, limit + 1, before)
            page, more = found[:limit], len(found) > limit
        # Even its owner reads nothing of a match whose seed twin is still being played.
        if not CALLER.get().is_admin:
            page = await asyncio.to_thread(secrecy.withhold_logs, self.db, page)
        return admin_pb2.GetBotLogsResponse(
            logs=[convert.seat_log_message(log) for log in page],
            next_page_token=str(page[-1].match_id) if more else "",
        )


def _check_failure(name: str, detail: str, stderr_tail: str) -> str:
    lines = [line for line in stderr_tail.strip().splitlines() if line.strip()]
    said = f"; its stderr ends: {lines[-1].strip()[:300]}" if lines else ""
    return f"bot {name} did not start: {detail}{said} (register it anyway with --no-check)"
