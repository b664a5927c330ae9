"""A league's results as a crosstable: for each pair of bots, how often one placed ahead of the
other when they met (a win counts 1, a shared place 1/2), with the standard error of that mean;
and per bot its places, faults and time used per decision. Built from the league's finished
matches as ``ListMatches`` returns them; pure, so it is tested without a server.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from kingmaker.ladder.outcomes import EndReason
from kingmaker.v1 import admin_pb2, common_pb2


def end_reason(seat: common_pb2.SeatResult) -> str:
    """The seat's end reason as its EndReason value ("finished", "timeout"...); "" if unknown."""
    if seat.end_reason == common_pb2.END_REASON_UNSPECIFIED:
        return ""
    return common_pb2.EndReason.Name(seat.end_reason).removeprefix("END_REASON_").lower()


@dataclass(frozen=True)
class HeadToHead:
    """How ``bot`` fared against one opponent: mean points per meeting and its standard error."""

    meetings: int
    score: float
    error: float


@dataclass
class BotLine:
    bot: str
    matches: int = 0
    places: list[int] = field(default_factory=list)
    faults: int = 0
    decisions: int = 0
    think_ms: float = 0.0

    @property
    def mean_place(self) -> float:
        return sum(self.places) / len(self.places) if self.places else 0.0

    @property
    def ms_per_decision(self) -> float | None:
        return self.think_ms / self.decisions if self.decisions else None


@dataclass(frozen=True)
class Crosstable:
    bots: tuple[str, ...]
    """Best mean place first (ties by name)."""
    lines: dict[str, BotLine]
    pairs: dict[tuple[str, str], HeadToHead]
    """(bot, opponent) -> how bot fared against opponent; absent when they never met."""
    matches: int


def crosstable(records: Iterable[admin_pb2.MatchRecord]) -> Crosstable:
    lines: dict[str, BotLine] = {}
    points: dict[tuple[str, str], list[float]] = defaultdict(list)
    counted = 0
    for record in records:
        if record.status != "finished":
            continue
        counted += 1
        times = {time.seat: time for time in record.seat_times}
        for seat in record.seats:
            line = lines.setdefault(seat.bot, BotLine(seat.bot))
            line.matches += 1
            if seat.rank:
                line.places.append(seat.rank)
            reason = end_reason(seat)
            line.faults += bool(reason) and EndReason(reason).is_bot_fault
            if seat.seat in times:
                line.decisions += times[seat.seat].decisions
                line.think_ms += times[seat.seat].total_ms
        if not record.rated:
            continue
        for seat in record.seats:
            for other in record.seats:
                if seat.seat == other.seat or not seat.rank or not other.rank:
                    continue
                ahead = 1.0 if seat.rank < other.rank else 0.5 if seat.rank == other.rank else 0.0
                points[(seat.bot, other.bot)].append(ahead)
    order = sorted(lines, key=lambda bot: (lines[bot].mean_place or math.inf, bot))
    return Crosstable(
        bots=tuple(order),
        lines=lines,
        pairs={pair: _mean_and_error(values) for pair, values in points.items()},
        matches=counted,
    )


def _mean_and_error(values: list[float]) -> HeadToHead:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return HeadToHead(n, mean, math.nan)
    variance = sum((value - mean) ** 2 for value in values) / (n - 1)
    return HeadToHead(n, mean, math.sqrt(variance / n))
