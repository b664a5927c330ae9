"""One rate for a whole run of matches, however they were grouped while they played.

A run is several matches in play at once (one league, or several side by side). Its rate is the
decisions of every match after the first over the time from the first finish to the last: one
span, one clock, so it counts only what the server did while the clock ran. Adding up a rate per
group, each over its own span, does not: when the groups are out of step their spans overlap only
in part, and the sum counts the same seconds of the server once per group (two groups that take
turns give twice the server's rate).
"""

from __future__ import annotations

from collections.abc import Iterable


def combined_rate(finishes: Iterable[tuple[float, int]]) -> float:
    """Decisions per second of a run, from each match's (finish time in seconds, decisions), in
    any order: the decisions of the matches after the first to finish, over the span from that
    first finish to the last. The first match's decisions were made before the clock started
    (with the processes starting and the league being set up), so they are left out."""
    ordered = sorted(finishes)
    if len(ordered) < 2:
        raise ValueError(f"a rate needs at least two finished matches, not {len(ordered)}")
    (first, _), *rest = ordered
    span = rest[-1][0] - first
    if span <= 0:
        raise ValueError("every match finished at the same instant: no span to divide by")
    return sum(decisions for _, decisions in rest) / span
