"""Leagues (create, run, pause, resume, stop, rerun; bots joining and leaving a ladder) and the
ladder's standings and rating history.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import grpc

from kingmaker.games.registry import UnknownGameError, get_game
from kingmaker.ladder import bounds
from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import league_counts, league_lifecycle, leagues, membership
from kingmaker.ladder.pairing import league_pool
from kingmaker.ladder.ratings import standings
from kingmaker.ladder.records import LeagueInfo
from kingmaker.ladder.result_batch import StoredResult
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import MatchStatus, PeopleRating, Rating
from kingmaker.sdk.codec import CodecError, options_from_proto
from kingmaker.server.grpc_abort import abort
from kingmaker.server.scheduling.scheduler import Progress
from kingmaker.server.services import convert, validation
from kingmaker.server.services.admin.base import Context, permitted
from kingmaker.server.services.admin.match_records import MatchRecords
from kingmaker.v1 import admin_pb2


class LeagueRpcs(MatchRecords):
    """Leagues, their entrants and runs, and the ladder's standings."""

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
        info = await asyncio.to_thread(league_lifecycle.rerun_league, self.db, old.id, request.new_name)
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
        await asyncio.to_thread(league_lifecycle.pause_league, self.db, request.name)
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
        await asyncio.to_thread(league_lifecycle.stop_league, self.db, request.name)
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
        table = PeopleRating if request.with_people else Rating
        rows = await asyncio.to_thread(standings.standings, self.db, request.game, limit, offset, table)
        total = await asyncio.to_thread(standings.ladder_size, self.db, request.game, table)
        return admin_pb2.GetStandingsResponse(
            game=request.game, standings=[convert.standing_message(r) for r in rows], total=total
        )

    @permitted
    async def GetRatingHistory(
        self, request: admin_pb2.GetRatingHistoryRequest, context: Context
    ) -> admin_pb2.GetRatingHistoryResponse:
        await _require_game(context, request.game)
        if request.bot:
            points = await asyncio.to_thread(standings.bot_history, self.db, request.game, request.bot)
            return admin_pb2.GetRatingHistoryResponse(series=[convert.rating_series(request.bot, points)])
        top = validation.page_size(request.top, default=5)
        series = await asyncio.to_thread(standings.rating_history, self.db, request.game, top)
        return admin_pb2.GetRatingHistoryResponse(
            series=[convert.rating_series(bot, points) for bot, points in series.items()]
        )

    async def _league(self, name: str) -> admin_pb2.LeagueInfo:
        info = await asyncio.to_thread(leagues.get_league, self.db, name)
        counts = await asyncio.to_thread(league_counts.league_progress, self.db, info.id)
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
            last = progress.last
            if isinstance(last, StoredResult) and last.summary is not None:  # read as it was stored
                message.last.CopyFrom(await self._for_caller(convert.stored_record(last.summary, None)))
            else:
                message.last.CopyFrom(await self._stored(last.match_id, with_log=False))
        return message


async def _require_game(context: Context, name: str) -> None:
    """End the call with INVALID_ARGUMENT unless ``name`` is a registered game."""
    try:
        get_game(name)
    except UnknownGameError as error:
        await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
