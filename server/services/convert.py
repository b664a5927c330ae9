"""Translations between the server's and the ladder's values and the Admin service's messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from kingmaker.games import serial
from kingmaker.games.api import Game
from kingmaker.games.registry import get_game
from kingmaker.ladder.bots.authors import AuthorInfo
from kingmaker.ladder.bots.notices import NoticeRecord
from kingmaker.ladder.matches.bot_stats import BotRecord
from kingmaker.ladder.matches.history import MatchSummary
from kingmaker.ladder.matches.match_reads import MatchLogRecord
from kingmaker.ladder.matches.seat_logs import SeatLogRecord
from kingmaker.ladder.matches.think_times import ThinkTime, summarise
from kingmaker.ladder.matches.trial_matches import TrialRecord, TrialSeat
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.ratings.standings import HistoryPoint, Standing
from kingmaker.ladder.records import BotInfo, LeagueInfo
from kingmaker.ladder.step_output import StepOutput
from kingmaker.sdk.codec import codec_for, option_value_to_proto, options_to_proto
from kingmaker.sdk.sprt import Sprt, confidence, elo_estimate
from kingmaker.server.execution.executors import WorkerLoad
from kingmaker.server.refereeing.referee import MatchReport, end_reason_proto, seat_result_proto
from kingmaker.server.scheduling.duels import DuelState
from kingmaker.v1 import admin_pb2, common_pb2


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


def report_record(report: MatchReport) -> admin_pb2.MatchRecord:
    """A match the server played for the caller without storing it in the ladder."""
    codec = codec_for(report.game)
    return admin_pb2.MatchRecord(
        match_id=report.match_id,
        game=report.game,
        edition=report.edition,
        seed=report.seed,
        options=options_to_proto(report.options),
        seats=[seat_result_proto(seat, with_stderr=True) for seat in report.seats],
        decisions=[
            admin_pb2.JointAction(
                actions=[
                    admin_pb2.SeatAction(seat=d.seat, action=codec.pack_action(d.action), source=d.source)
                    for d in decisions
                ]
            )
            for decisions in report.decisions
        ],
        status=report_status(report),
        status_reason=report_reason(report),
        started_at=report.started_at,
        finished_at=report.finished_at,
        observation_digests=[admin_pb2.SeatDigests(digests=seat) for seat in report.observation_digests],
        seat_times=[seat_time(seat, summarise(samples)) for seat, samples in enumerate(report.think_ms)],
    )


def report_status(report: MatchReport) -> str:
    """A match played for the caller is void when the server failed one of its seats."""
    return "void" if any(seat.end_reason.is_server_fault for seat in report.seats) else "finished"


def report_reason(report: MatchReport) -> str:
    failed = [seat for seat in report.seats if seat.end_reason.is_server_fault]
    if failed:
        seat = next((s for s in failed if s.end_reason is EndReason.SEAT_UNFILLED), failed[0])
        return f"seat {seat.seat} {seat.end_reason.value}: {seat.detail}"
    if all(seat.end_reason.is_bot_fault for seat in report.seats):
        return "no seat played: every seat ended by its bot's fault"
    return ""


def stored_record(summary: MatchSummary, log: MatchLogRecord | None = None) -> admin_pb2.MatchRecord:
    """A match from the ladder's database, with its decisions when its log is given."""
    record = admin_pb2.MatchRecord(
        match_id=str(summary.match_id),
        game=summary.game,
        seed=summary.seed,
        options=options_to_proto(summary.options),
        status=summary.status,
        status_reason=summary.status_reason or "",
        rated=summary.rated,
        started_at=_seconds(summary.started_at),
        finished_at=_seconds(summary.finished_at),
        league=summary.league or "",
        seat_times=[seat_time(seat, think) for seat, think in enumerate(summary.think)],
        duplicate_group=summary.duplicate_group,
    )
    for seat, bot in zip(summary.seats, summary.bots, strict=True):
        result = common_pb2.SeatResult(
            seat=seat.seat,
            bot=bot,
            detail=seat.detail or "",
            stderr_tail=seat.stderr_tail or "",
            version=seat.version or 0,
        )
        if seat.end_reason is not None:
            result.end_reason = end_reason_proto(seat.end_reason)
            result.score = seat.score or 0
            result.rank = seat.rank or 0
            result.strikes = seat.strikes or 0
        record.seats.append(result)
    if log is not None:
        record.edition = log.rules_edition
        record.decisions.extend(logged_decisions(summary.game, log.actions))
        record.observation_digests.extend(admin_pb2.SeatDigests(digests=seat) for seat in log.digests)
    return record


def logged_decisions(game: str, actions: Sequence[Mapping[str, Any]]) -> list[admin_pb2.JointAction]:
    """A stored log's joint actions (``records.actions_to_data``'s form) as the record's decisions."""
    spec = get_game(game).spec
    codec = codec_for(game)
    return [
        admin_pb2.JointAction(
            actions=[
                admin_pb2.SeatAction(
                    seat=int(seat), action=codec.pack_action(serial.action_from_data(spec, data))
                )
                for seat, data in sorted(joint.items(), key=lambda item: int(item[0]))
            ]
        )
        for joint in actions
    ]


def trial_info(trial: TrialRecord) -> admin_pb2.TrialMatchInfo:
    """A version's trial match as ``ListTrialMatches`` lists it."""
    return admin_pb2.TrialMatchInfo(
        id=trial.id,
        bot=trial.bot,
        version=trial.version,
        purpose=trial.purpose,
        game=trial.game,
        seed=trial.seed,
        seats=[_trial_seat(number, seat) for number, seat in enumerate(trial.seats)],
        played_at=_seconds(trial.played_at),
    )


def trial_record(trial: TrialRecord) -> admin_pb2.MatchRecord:
    """A trial match as a match record (``trial:ID``), with its decisions: what a replay reads.
    Never rated; void when the server failed one of its seats."""
    void = any(EndReason(seat.end_reason).is_server_fault for seat in trial.seats)
    return admin_pb2.MatchRecord(
        match_id=f"trial:{trial.id}",
        game=trial.game,
        edition=trial.rules_edition,
        seed=trial.seed,
        options=options_to_proto(trial.options),
        seats=[_trial_seat(number, seat) for number, seat in enumerate(trial.seats)],
        decisions=logged_decisions(trial.game, trial.actions or []),
        observation_digests=[admin_pb2.SeatDigests(digests=seat) for seat in trial.digests or []],
        status="void" if void else "finished",
        status_reason=f"{trial.bot} v{trial.version}'s {trial.purpose} match: never rated",
        rated=False,
        started_at=_seconds(trial.played_at),
        finished_at=_seconds(trial.played_at),
        revealed=True,
    )


def _trial_seat(number: int, seat: TrialSeat) -> common_pb2.SeatResult:
    return common_pb2.SeatResult(
        seat=number,
        bot=seat.bot,
        score=seat.score,
        rank=seat.rank,
        end_reason=end_reason_proto(EndReason(seat.end_reason)),
        detail=seat.detail,
        version=seat.version or 0,
    )


def seat_time(seat: int, think: ThinkTime) -> admin_pb2.SeatTime:
    return admin_pb2.SeatTime(
        seat=seat,
        decisions=think.decisions,
        total_ms=think.total_ms,
        p50_ms=think.p50_ms,
        p99_ms=think.p99_ms,
    )


def bot_stats(record: BotRecord) -> admin_pb2.BotStats:
    return admin_pb2.BotStats(
        bot=record.bot,
        games=[
            admin_pb2.BotGameStats(
                game=game.game,
                matches=game.matches,
                wins=game.wins,
                win_rate=game.win_rate,
                mean_place=game.mean_place,
                faults=game.faults,
                mu=game.mu,
                sigma=game.sigma,
                conservative=game.conservative,
                position=game.position,
                ladder_size=game.ladder_size,
            )
            for game in record.games
        ],
        ends=record.ends,
        think=seat_time(0, record.think),
        think_matches=record.think_matches,
        last_fault=admin_pb2.SeatFault(
            match_id=str(record.last_fault.match_id),
            end_reason=record.last_fault.end_reason,
            detail=record.last_fault.detail,
        )
        if record.last_fault is not None
        else None,
    )


def bot_message(bot: BotInfo, connected: bool = False) -> admin_pb2.BotInfo:
    return admin_pb2.BotInfo(
        name=bot.name,
        games=list(bot.games),
        command=list(bot.command or ()),
        working_directory=bot.working_dir or "",
        enabled=bot.enabled,
        suspended_reason=bot.suspended_reason or "",
        suspended_stderr=bot.suspended_stderr or "",
        created_at=_seconds(bot.created_at),
        connected=connected,
        retired=bot.retired,
        author=bot.author or "",
        active_version=bot.active_version or 0,
        managed=bot.command is not None,
    )


def author_message(author: AuthorInfo) -> admin_pb2.AuthorInfo:
    return admin_pb2.AuthorInfo(
        name=author.name,
        enabled=author.enabled,
        bot_quota=author.bot_quota,
        bots=author.bots,
        created_at=_seconds(author.created_at),
        builds_at_once=author.builds_at_once,
        submissions_per_hour=author.submissions_per_hour,
        stored_bytes_bound=author.stored_bytes,
        stored_bytes=author.stored,
    )


def league_message(
    info: LeagueInfo, names: Mapping[int, str], counts: dict[str, int]
) -> admin_pb2.LeagueInfo:
    """The league as the admin API shows it (``names``: its bots' names by id)."""
    return admin_pb2.LeagueInfo(
        name=info.name,
        game=info.game,
        format=info.format,
        players=info.players,
        seed=info.seed,
        duplicate=info.duplicate,
        options=options_to_proto(info.options),
        bots=[names[bot_id] for bot_id in info.bot_ids],
        finished=info.finished,
        matches=counts,
        status_reason=info.status_reason or "",
        paused=info.paused,
        concurrency=info.concurrency or 0,
        away=[names[bot_id] for bot_id in info.away_ids],
        left=[names[bot_id] for bot_id in info.left_ids],
        max_matches=info.settings.get("max_matches") or 0,
        time_budget_seconds=info.settings.get("time_budget_s") or 0.0,
        started_at=_seconds(info.started_at),
    )


def worker_load(load: WorkerLoad) -> admin_pb2.WorkerLoad:
    return admin_pb2.WorkerLoad(
        pid=load.pid, in_play=load.in_play, loop_lag_ms=load.loop_lag_ms, matches_done=load.matches_done
    )


def standing_message(row: Standing) -> admin_pb2.Standing:
    return admin_pb2.Standing(
        position=row.position,
        bot=row.bot,
        mu=row.mu,
        sigma=row.sigma,
        conservative=row.conservative,
        matches=row.matches,
        wins=row.wins,
        average_rank=row.average_rank,
        faults=row.faults,
        active=row.active,
    )


def rating_series(bot: str, points: list[HistoryPoint]) -> admin_pb2.RatingSeries:
    return admin_pb2.RatingSeries(
        bot=bot,
        points=[
            admin_pb2.RatingPoint(
                matches=p.matches,
                mu=p.mu,
                sigma=p.sigma,
                conservative=p.conservative,
                version=p.version or 0,
                match_id=str(p.match_id),
            )
            for p in points
        ],
    )


def _seconds(moment: datetime | None) -> float:
    return moment.timestamp() if moment is not None else 0.0


def seat_log_message(log: SeatLogRecord) -> admin_pb2.SeatLog:
    message = admin_pb2.SeatLog(
        match_id=str(log.match_id),
        seat=log.seat,
        bot=log.bot,
        version=log.version or 0,
        game=log.game,
        finished_at=_seconds(log.finished_at),
        detail=log.detail,
        exit=log.exit,
        stderr=log.stderr,
        stderr_bytes=log.stderr_bytes,
        steps=step_messages(log.steps),
        strikes=[
            admin_pb2.Strike(request_id=int(strike["request"]), kind=strike["kind"], detail=strike["detail"])
            for strike in log.strikes
        ],
    )
    if log.end_reason is not None:
        message.end_reason = end_reason_proto(log.end_reason)
    return message


def report_seat_logs(report: MatchReport) -> list[admin_pb2.SeatLog]:
    """The seat logs of a match that was not stored (``match run --seat``): from its report."""
    return [
        admin_pb2.SeatLog(
            match_id=report.match_id,
            seat=seat.seat,
            bot=seat.bot,
            game=report.game,
            finished_at=report.finished_at,
            end_reason=end_reason_proto(seat.end_reason),
            detail=seat.detail,
            exit=seat.exit,
            stderr=seat.stderr,
            stderr_bytes=seat.stderr_bytes,
            steps=step_messages(seat.step_output),
            strikes=[
                admin_pb2.Strike(request_id=strike.request_id, kind=strike.kind, detail=strike.detail)
                for strike in seat.strike_log
            ],
        )
        for seat in report.seats
        if seat.strike_log or seat.stderr_bytes or seat.exit
    ]


def step_messages(steps: Sequence[StepOutput]) -> list[admin_pb2.StepOutput]:
    return [admin_pb2.StepOutput(decision=step.decision, text=step.text, bytes=step.bytes) for step in steps]


def duel_progress(state: DuelState, test: Sprt) -> admin_pb2.DuelProgress:
    mean, low, high = confidence(state.units)
    diff, half = elo_estimate(state.units)
    return admin_pb2.DuelProgress(
        seeds=state.units.n,
        matches=state.matches,
        score=mean,
        score_low=low,
        score_high=high,
        elo=diff,
        elo_half_width=half,
        llr=test.llr(state.units),
        llr_lower=test.lower,
        llr_upper=test.upper,
        verdict=state.verdict.value,
        done=state.done,
        reason=state.reason,
    )


def notice_message(notice: NoticeRecord) -> admin_pb2.Notice:
    return admin_pb2.Notice(
        id=str(notice.id),
        author=notice.author,
        kind=notice.kind,
        summary=notice.summary,
        detail=notice.detail,
        bot=notice.bot,
        version=notice.version,
        competition=notice.competition,
        created_at=_seconds(notice.created_at),
    )
