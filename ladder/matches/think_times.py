"""How long bots take to decide: the samples a match log keeps, and their percentiles.

The referee measures each request from sending it to the reply, less the server's own lag
(``server.refereeing.referee``). A finished match's log keeps those samples per seat under
``timings["think_ms"]`` (one list per seat, in ms, rounded to 0.01), so a bot's think time can be
read back without a schema change; matches stored before this was recorded have no samples.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

THINK_KEY = "think_ms"


@dataclass(frozen=True)
class ThinkTime:
    """One bot's decisions in one or more matches, and how long they took (ms)."""

    decisions: int
    total_ms: float
    p50_ms: float
    p99_ms: float

    @property
    def mean_ms(self) -> float:
        return self.total_ms / self.decisions if self.decisions else 0.0


def rounded(samples: Sequence[Sequence[float]]) -> list[list[float]]:
    """The per-seat samples as a match log stores them."""
    return [[round(value, 2) for value in seat] for seat in samples]


def seat_samples(timings: Mapping[str, Any], seat: int) -> list[float]:
    """One seat's samples from a match log's timings; empty where none were recorded."""
    return samples_of(timings.get(THINK_KEY), seat)


def samples_of(per_seat: Sequence[Sequence[float]] | None, seat: int) -> list[float]:
    """One seat's samples from the timings' think times alone (``compact_logs.unpack_think_times``)."""
    per_seat = per_seat or []
    return [float(value) for value in per_seat[seat]] if seat < len(per_seat) else []


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of sorted values (0 for none)."""
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(fraction * len(ordered)))
    return float(ordered[rank - 1])


def summarise(samples: Sequence[float]) -> ThinkTime:
    ordered = sorted(samples)
    return ThinkTime(
        decisions=len(ordered),
        total_ms=float(sum(ordered)),
        p50_ms=percentile(ordered, 0.50),
        p99_ms=percentile(ordered, 0.99),
    )
