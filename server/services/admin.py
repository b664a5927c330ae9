"""The Admin service the command line talks to. Every call needs the admin token."""

from __future__ import annotations

import functools
import hmac
import os
import secrets
import shutil
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc

from kingmaker.games.api import Game, OptionsError
from kingmaker.games.registry import UnknownGameError, all_games, get_game
from kingmaker.sdk.codec import (
    CodecError,
    codec_for,
    option_value_to_proto,
    options_from_proto,
    options_to_proto,
)
from kingmaker.server.archive import MemoryArchive
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.launcher import LaunchError
from kingmaker.server.matches import LaunchedMatchRunner, SeatSpec
from kingmaker.server.referee import MatchReport, seat_result_proto
from kingmaker.server.services.errors import abort
from kingmaker.v1 import admin_pb2, admin_pb2_grpc, common_pb2

Reply = TypeVar("Reply")
Handler = Callable[[Any, Any, grpc.aio.ServicerContext], Awaitable[Reply]]


def admin_only(method: Handler[Reply]) -> Handler[Reply]:
    """Refuse the call with UNAUTHENTICATED unless it carries the admin token."""

    @functools.wraps(method)
    async def checked(self: AdminService, request: Any, context: grpc.aio.ServicerContext) -> Reply:
        metadata = dict(context.invocation_metadata() or ())
        offered = str(metadata.get("authorization", "")).removeprefix("Bearer ").strip()
        if not hmac.compare_digest(offered.encode(), self.admin_token.encode()):
            await abort(context, grpc.StatusCode.UNAUTHENTICATED, "missing or wrong admin token")
        return await method(self, request, context)

    return checked


class AdminService(admin_pb2_grpc.AdminServicer):
    def __init__(
        self,
        admin_token: str,
        runner: LaunchedMatchRunner,
        archive: MemoryArchive,
        default_control: TimeControl,
    ) -> None:
        self.admin_token = admin_token
        self.runner = runner
        self.archive = archive
        self.default_control = default_control

    @admin_only
    async def ListGames(
        self, request: admin_pb2.ListGamesRequest, context: grpc.aio.ServicerContext
    ) -> admin_pb2.ListGamesResponse:
        return admin_pb2.ListGamesResponse(games=[game_info(game) for game in all_games()])

    @admin_only
    async def RunMatch(
        self, request: admin_pb2.RunMatchRequest, context: grpc.aio.ServicerContext
    ) -> admin_pb2.MatchRecord:
        try:
            game = get_game(request.game)
            options = options_from_proto(request.options)
            seats = [seat_spec(seat) for seat in request.seats]
            control = (
                time_control(request.time_control)
                if request.HasField("time_control")
                else self.default_control
            )
            seed = request.seed if request.HasField("seed") else secrets.randbits(63)
            game.new(len(seats), seed, options)
        except (UnknownGameError, OptionsError, CodecError, ValueError) as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        try:
            report = await self.runner.run(game.spec.name, seats, seed, options, control)
        except LaunchError as error:
            await abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(error))
        self.archive.add(report)
        return match_record(report)

    @admin_only
    async def GetMatch(
        self, request: admin_pb2.GetMatchRequest, context: grpc.aio.ServicerContext
    ) -> admin_pb2.MatchRecord:
        report = self.archive.get(request.match_id)
        if report is None:
            await abort(context, grpc.StatusCode.NOT_FOUND, f"no match {request.match_id!r}")
        return match_record(report)


def new_admin_token() -> str:
    return secrets.token_urlsafe(32)


def seat_spec(seat: admin_pb2.MatchSeat) -> SeatSpec:
    if not seat.command:
        raise ValueError(
            f"seat {seat.bot!r} has no command (registered bots are not supported by RunMatch yet)"
        )
    program = seat.command[0]
    found = (
        shutil.which(program) if "/" not in program else (program if os.access(program, os.X_OK) else None)
    )
    if found is None:
        raise ValueError(f"cannot start {program!r}: no such executable")
    return SeatSpec(
        bot=seat.bot or seat.command[-1], command=tuple(seat.command), cwd=seat.working_directory or None
    )


def time_control(message: common_pb2.TimeControl) -> TimeControl:
    return TimeControl(
        decision_ms=message.decision_ms or TimeControl.decision_ms,
        bank_ms=message.bank_ms,
        increment_ms=message.increment_ms,
        max_strikes=message.max_strikes or TimeControl.max_strikes,
    )


def game_info(game: Game) -> admin_pb2.GameInfo:
    spec = game.spec
    return admin_pb2.GameInfo(
        name=spec.name,
        title=spec.title,
        edition=spec.edition,
        min_players=spec.min_players,
        max_players=spec.max_players,
        chance=spec.chance,
        hidden_information=spec.hidden_information,
        simultaneous=spec.simultaneous,
        score_name=spec.score_name,
        options=[
            admin_pb2.OptionInfo(
                name=option.name,
                default=option_value_to_proto(option.default),
                help=option.help,
                choices=[option_value_to_proto(choice) for choice in option.choices],
            )
            for option in spec.options
        ],
    )


def match_record(report: MatchReport) -> admin_pb2.MatchRecord:
    codec = codec_for(report.game)
    return admin_pb2.MatchRecord(
        match_id=report.match_id,
        game=report.game,
        edition=report.edition,
        seed=report.seed,
        options=options_to_proto(report.options),
        seats=[seat_result_proto(seat) for seat in report.seats],
        decisions=[
            admin_pb2.JointAction(
                actions=[
                    admin_pb2.SeatAction(seat=d.seat, action=codec.pack_action(d.action), source=d.source)
                    for d in decisions
                ]
            )
            for decisions in report.decisions
        ],
        status="finished",
        started_at=report.started_at,
        finished_at=report.finished_at,
        observation_digests=list(report.observation_digests),
    )
