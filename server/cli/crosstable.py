"""A league's results as a crosstable: for each pair of bots, how often one placed ahead of the
other when they met (a win counts 1, a shared place 1/2), with the standard error of that mean;
and per bot its places, faults and time used per decision. Built from the league's finished
matches as ``ListMatches`` returns them; pure, so it is tested without a server.

The standard error is over independent observations: a match, or all the matches of one
duplicate group (one seed, its seats in every rotation), whose scores are averaged first: twins
share their luck, so counting them apart would shrink the error. It is Agresti and Coull's: the
observations plus two pseudo-observations at 0 and two at 1 (z^2 ~ 4 for 95%), so a clean sweep
of n groups shows about sqrt(p(1-p)/(n+4)) with p = (n+2)/(n+4), never 0.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.web.seat_words import end_reason_word
from kingmaker.v1 import admin_pb2, common_pb2


def end_reason(seat: common_pb2.SeatResult) -> str:
    """The seat's end reason as its EndReason value ("finished", "timeout"...); "" if unknown."""
    if seat.end_reason == common_pb2.END_REASON_UNSPECIFIED:
        return ""
    return end_reason_word(seat.end_reason)


@dataclass(frozen=True)
class HeadToHead:
    """How ``bot`` fared against one opponent: mean points per meeting and its standard error."""

    meetings: int
    """Pairwise results: one per match they met in (times their seat pairs)."""
    score: float
    error: float
    observations: int = 0
    """Independent ones: matches, a duplicate group counting once."""


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
    points: dict[tuple[str, str], dict[tuple[str, int], list[float]]] = defaultdict(lambda: defaultdict(list))
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
        group = observation(record)
        for seat in record.seats:
            for other in record.seats:
                if seat.seat == other.seat or not seat.rank or not other.rank:
                    continue
                ahead = 1.0 if seat.rank < other.rank else 0.5 if seat.rank == other.rank else 0.0
                points[(seat.bot, other.bot)][group].append(ahead)
    order = sorted(lines, key=lambda bot: (lines[bot].mean_place or math.inf, bot))
    return Crosstable(
        bots=tuple(order),
        lines=lines,
        pairs={pair: _mean_and_error(values) for pair, values in points.items()},
        matches=counted,
    )


def observation(record: admin_pb2.MatchRecord) -> tuple[str, int]:
    """What makes one independent observation: its duplicate group, or the match alone."""
    if record.HasField("duplicate_group"):
        return (f"{record.league}/group", record.duplicate_group)
    return (f"{record.league}/match {record.match_id}", 0)


PSEUDO = (0.0, 0.0, 1.0, 1.0)
"""Agresti-Coull's pseudo-observations for 95% (z^2 = 3.84, rounded to 4 as they round it)."""


def _mean_and_error(groups: dict[tuple[str, int], list[float]]) -> HeadToHead:
    """The mean pairwise score and its standard error over independent observations (each group's
    mean), with Agresti-Coull's pseudo-observations in the error (not in the mean shown)."""
    units = [sum(values) / len(values) for values in groups.values()]
    meetings = sum(len(values) for values in groups.values())
    score = sum(sum(values) for values in groups.values()) / meetings
    padded = [*units, *PSEUDO]
    centre = sum(padded) / len(padded)
    variance = sum((unit - centre) ** 2 for unit in padded) / len(padded)
    return HeadToHead(meetings, score, math.sqrt(variance / len(padded)), len(units))
