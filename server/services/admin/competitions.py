"""Competitions: create, enter, select a version, read, list, start the finals. Each call first
brings competitions up to the clock, so a deadline is applied at the moment it is asked about,
not only at the ticker's next look (``competition_ticker``)."""

from __future__ import annotations

import asyncio
import contextlib

from kingmaker.ladder import bounds
from kingmaker.ladder.competitions import competition_phases, competitions
from kingmaker.ladder.competitions.competition_clock import competition_now
from kingmaker.ladder.competitions.competitions import parse_time
from kingmaker.ladder.errors import InvalidRequestError, LadderError
from kingmaker.ladder.leagues import leagues
from kingmaker.server.scheduling.competition_ticker import look
from kingmaker.server.services import validation
from kingmaker.server.services.admin.base import AdminBase, Context, permitted
from kingmaker.server.services.competition_messages import competition_message
from kingmaker.v1 import admin_pb2


class CompetitionRpcs(AdminBase):
    """A season with a deadline, finals and a winner (docs/competitions.md)."""

    @permitted
    async def CreateCompetition(
        self, request: admin_pb2.CreateCompetitionRequest, context: Context
    ) -> admin_pb2.CompetitionInfo:
        if not request.closes_at:
            raise InvalidRequestError("a competition needs a deadline (closes_at, ISO 8601 UTC)")
        finals: dict[str, object] = {"format": request.finals_format or "ladder"}
        if request.rounds:
            finals["rounds"] = request.rounds
        if request.cuts:
            finals["cuts"] = list(request.cuts)
        if request.best_of:
            finals["best_of"] = request.best_of
        now = competition_now()
        await asyncio.to_thread(
            competitions.create_competition,
            self.db,
            request.name,
            request.game,
            parse_time(request.closes_at),
            now,
            opens_at=parse_time(request.opens_at) if request.opens_at else None,
            players=request.players or None,
            finals=finals,
            tiers=[{"name": tier.name, "boss": tier.boss or None} for tier in request.tiers],
            promote_after=request.promote_after or None,
            finals_at=parse_time(request.finals_at) if request.finals_at else None,
            relegate_after=request.relegate_after,
        )
        return await self._competition(request.name)

    @permitted
    async def EnterCompetition(
        self, request: admin_pb2.CompetitionEntryRequest, context: Context
    ) -> admin_pb2.CompetitionInfo:
        await look(self.db, self.league_runner)
        await asyncio.to_thread(
            competitions.enter_competition, self.db, request.name, request.bot, competition_now()
        )
        await look(self.db, self.league_runner)  # the open ladder runs, with its new entrant
        info = await asyncio.to_thread(competitions.get_competition, self.db, request.name)
        if info.open_league:
            league = await asyncio.to_thread(leagues.get_league, self.db, info.open_league)
            await self.league_runner.entrants_changed(league.id)
        return competition_message(info, competition_now())

    @permitted
    async def LeaveCompetition(
        self, request: admin_pb2.CompetitionEntryRequest, context: Context
    ) -> admin_pb2.CompetitionInfo:
        await look(self.db, self.league_runner)
        info = await asyncio.to_thread(
            competitions.leave_competition, self.db, request.name, request.bot, competition_now()
        )
        for league_name in [info.open_league, *(tier["league"] for tier in info.tiers)]:
            if league_name:  # its running ladder looks again: the entry's waiting matches go
                with contextlib.suppress(LadderError):
                    league = await asyncio.to_thread(leagues.get_league, self.db, league_name)
                    await self.league_runner.entrants_changed(league.id)
        return competition_message(info, competition_now())

    @permitted
    async def SelectCompetitionVersion(
        self, request: admin_pb2.CompetitionEntryRequest, context: Context
    ) -> admin_pb2.CompetitionInfo:
        await look(self.db, self.league_runner)
        await asyncio.to_thread(
            competitions.select_version,
            self.db,
            request.name,
            request.bot,
            request.version,
            competition_now(),
        )
        return await self._competition(request.name)

    @permitted
    async def GetCompetition(
        self, request: admin_pb2.GetCompetitionRequest, context: Context
    ) -> admin_pb2.CompetitionInfo:
        return await self._competition(request.name)

    @permitted
    async def ListCompetitions(
        self, request: admin_pb2.ListCompetitionsRequest, context: Context
    ) -> admin_pb2.ListCompetitionsResponse:
        limit = validation.page_size(request.limit, default=bounds.PAGE.high)
        after = validation.page_token_id(request.page_token)
        found = await asyncio.to_thread(competitions.list_competitions, self.db, limit + 1, after)
        page, more = found[:limit], len(found) > limit
        now = competition_now()
        return admin_pb2.ListCompetitionsResponse(
            competitions=[competition_message(row, now) for row in page],
            next_page_token=str(page[-1].id) if more else "",
        )

    @permitted
    async def StartFinals(
        self, request: admin_pb2.GetCompetitionRequest, context: Context
    ) -> admin_pb2.CompetitionInfo:
        await look(self.db, self.league_runner)
        await asyncio.to_thread(competition_phases.start_finals, self.db, request.name, competition_now())
        await look(self.db, self.league_runner)  # runs the stage's leagues now
        return await self._competition(request.name)

    async def _competition(self, name: str) -> admin_pb2.CompetitionInfo:
        info = await asyncio.to_thread(competitions.get_competition, self.db, name)
        return competition_message(info, competition_now())
