"""A competition (``ladder.competition_records``) as the Admin service's message."""

from __future__ import annotations

from datetime import datetime

from kingmaker.ladder.competitions.competition_records import CompetitionInfo
from kingmaker.ladder.competitions.competition_rows import format_time
from kingmaker.v1 import admin_pb2


def competition_message(info: CompetitionInfo, now: datetime) -> admin_pb2.CompetitionInfo:
    finals = info.finals
    return admin_pb2.CompetitionInfo(
        name=info.name,
        game=info.game,
        players=info.players,
        opens_at=format_time(info.opens_at),
        closes_at=format_time(info.closes_at),
        phase=info.phase,
        finals_format=finals.get("format", ""),
        rounds=finals.get("rounds", 0),
        cuts=finals.get("cuts", []),
        best_of=finals.get("best_of", 0),
        open_league=info.open_league or "",
        stage=info.stage,
        winner=info.winner or "",
        entries=[
            admin_pb2.CompetitionEntry(
                bot=e.bot,
                author=e.author or "",
                active_version=e.active_version or 0,
                selected_version=e.selected_version or 0,
                frozen_version=e.frozen_version or 0,
                seed=e.seed or 0,
                out_at_stage=e.out_at_stage or 0,
                tier=e.tier or "",
            )
            for e in info.entries
        ],
        decisions=[
            admin_pb2.CompetitionDecision(
                kind=d.kind,
                bot=d.bot or "",
                stage=d.stage,
                reason=d.reason,
                decided_at=format_time(d.decided_at),
            )
            for d in info.decisions
        ],
        standings=[
            admin_pb2.CompetitionStanding(
                place=s.place,
                bot=s.bot,
                version=s.version or 0,
                mu=s.mu,
                sigma=s.sigma,
                conservative=s.conservative,
                matches=s.matches,
                wins=s.wins,
                note=s.note,
                points=s.points,
                buchholz=s.buchholz,
                tier=s.tier,
            )
            for s in info.standings
        ],
        stages=[
            admin_pb2.CompetitionStage(
                stage=st.stage,
                slot=st.slot,
                league=st.league,
                bots=list(st.bots),
                finished=st.finished,
                match_ids=list(st.match_ids),
            )
            for st in info.stages
        ],
        now=format_time(now),
        tiers=[
            admin_pb2.CompetitionTier(name=t["name"], boss=t["boss"] or "", league=t["league"])
            for t in info.tiers
        ],
        promote_after=info.promote_after,
        relegate_after=info.relegate_after,
        finals_at=format_time(info.finals_at or info.closes_at),
        swiss_rounds=[
            admin_pb2.SwissRound(
                stage=r.stage,
                tables=[
                    admin_pb2.SwissTable(bots=[bot for bot, _ in table], points=[p for _, p in table])
                    for table in r.tables
                ],
                byes=list(r.byes),
            )
            for r in info.swiss_rounds
        ],
    )
