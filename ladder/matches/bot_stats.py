"""One bot's record, for ``bot show``: per game its rated matches, wins and mean place (read from
the maintained ``rating`` rows), how its seats ended (one GROUP BY over its own seats, on the
``(bot_id, match_id)`` index) and how the latest faulty one did, and its think time over its
latest finished matches.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import col, select

from kingmaker.ladder.bots.bots import find_bot
from kingmaker.ladder.matches.compact_logs import unpack_think_times
from kingmaker.ladder.matches.think_times import ThinkTime, samples_of, summarise
from kingmaker.ladder.outcomes import EndReason
from kingmaker.ladder.ratings.standings import position_in, size_in
from kingmaker.ladder.storage.db import Database
from kingmaker.ladder.storage.models import Match, MatchLog, MatchSeat, MatchStatus, Rating

THINK_MATCHES = 200
"""How many of a bot's latest finished matches its think time is read from (a bounded read)."""


@dataclass(frozen=True)
class GameRecord:
    game: str
    matches: int
    wins: int
    mean_place: float
    faults: int
    mu: float = 0.0
    sigma: float = 0.0
    conservative: float = 0.0
    position: int = 0
    """Its place in the game's ladder, 1 the first (``standings.position_in``)."""
    ladder_size: int = 0

    @property
    def win_rate(self) -> float:
        return self.wins / self.matches if self.matches else 0.0


@dataclass(frozen=True)
class SeatFault:
    """A seat that ended by the bot's own fault."""

    match_id: int
    end_reason: str
    """An EndReason value."""
    detail: str
    """What happened, e.g. "the bot's process was killed by SIGSEGV"."""


@dataclass(frozen=True)
class BotRecord:
    bot: str
    games: tuple[GameRecord, ...]
    ends: dict[str, int]
    """How its seats ended, by EndReason value, over all its matches."""
    think: ThinkTime
    think_matches: int
    """How many matches ``think`` was read from."""
    last_fault: SeatFault | None = None
    """Its latest seat that ended by its own fault, if any."""


def bot_record(db: Database, name: str, think_matches: int = THINK_MATCHES) -> BotRecord:
    """``NotFoundError`` for an unknown bot."""
    with db.read() as session:
        bot = find_bot(session, name)
        ratings = session.exec(select(Rating).where(Rating.bot_id == bot.id).order_by(col(Rating.game))).all()
        places = [(row, position_in(session, row, bot.name), size_in(session, row.game)) for row in ratings]
        ends = session.exec(
            select(MatchSeat.end_reason, func.count())
            .where(MatchSeat.bot_id == bot.id, col(MatchSeat.end_reason).is_not(None))
            .group_by(col(MatchSeat.end_reason))
        ).all()
        faults = [reason.value for reason in EndReason if reason.is_bot_fault]
        # The last to finish, as the fault policy counts them (``faults.recent_faults``), so the
        # suspension's "the last in match N" and this name the same match: matches played at
        # once do not finish in the order of their ids.
        last_fault = session.exec(
            select(MatchSeat.match_id, MatchSeat.end_reason, MatchSeat.detail)
            .join(Match, col(Match.id) == col(MatchSeat.match_id))
            .where(MatchSeat.bot_id == bot.id, col(MatchSeat.end_reason).in_(faults))
            .order_by(col(Match.finished_at).desc(), col(Match.id).desc())
            .limit(1)
        ).first()
        logs = session.exec(
            select(MatchSeat.seat, MatchLog.timings)
            .join(Match, col(Match.id) == col(MatchSeat.match_id))
            .join(MatchLog, col(MatchLog.match_id) == col(MatchSeat.match_id))
            .where(MatchSeat.bot_id == bot.id, Match.status == MatchStatus.FINISHED)
            .order_by(col(MatchSeat.match_id).desc())
            .limit(think_matches)
        ).all()
    per_match = [samples_of(unpack_think_times(packed), seat) for seat, packed in logs]
    samples = [value for seat_values in per_match for value in seat_values]
    timed = sum(1 for seat_values in per_match if seat_values)
    return BotRecord(
        bot=bot.name,
        games=tuple(
            GameRecord(
                game=row.game,
                matches=row.matches,
                wins=row.wins,
                mean_place=row.rank_sum / row.matches if row.matches else 0.0,
                faults=row.faults,
                mu=row.mu,
                sigma=row.sigma,
                conservative=row.conservative,
                position=position,
                ladder_size=size,
            )
            for row, position, size in places
        ),
        ends={str(reason): int(count) for reason, count in ends},
        think=summarise(samples),
        think_matches=timed,
        last_fault=SeatFault(last_fault[0], str(last_fault[1]), last_fault[2] or "") if last_fault else None,
    )
