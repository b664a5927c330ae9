"""How a league's state reads, for `league status`, `league run` and the other league commands:
its matches, its pace (a continuous ladder shows matches per minute and what is left of its
budget, not a bar toward a total it keeps pushing back), why matches are held back and for how
long, and which of its bots are away."""

from __future__ import annotations

import time
from collections.abc import Sequence

from kingmaker.server.cli.common import console
from kingmaker.server.cli.output import print_table, table
from kingmaker.v1 import admin_pb2


def print_league(league: admin_pb2.LeagueInfo) -> None:
    state = "finished" if league.finished else "paused" if league.paused else "not finished"
    console.print(
        f"league [bold]{league.name}[/]: {league.game}, {league.format}, {league.players} seats, {state}"
    )
    console.print(f"bots: {', '.join(league.bots)}")
    if league.away:
        console.print(f"away: {', '.join(league.away)} (not connected: not scheduled until they connect)")
    if league.left:
        console.print(f"left: {', '.join(league.left)}")
    console.print(
        "matches: " + ", ".join(f"{count} {status}" for status, count in sorted(league.matches.items()))
    )
    if league.format == "ladder":
        console.print(pace(league), soft_wrap=True)
    if league.in_play or league.held_back:
        console.print(f"running now: {league.in_play} in play", soft_wrap=True)
    if league.held_back:
        console.print(
            held(league.held_back, league.held_back_seconds, league.server_lag_ms, league.lag_limit_ms)
            + f" ({duration(league.held_total_seconds)} in all this run); admission control starts "
            "them when it falls",
            soft_wrap=True,
        )
    if league.waiting_reason:
        console.print(league.waiting_reason, soft_wrap=True)
    if league.workers:
        print_workers(league.workers)
    if league.status_reason:
        console.print(f"last run: {league.status_reason}")


def print_workers(workers: Sequence[admin_pb2.WorkerLoad]) -> None:
    """The server's worker processes (all leagues together): what each is doing."""
    shown = table(
        f"the server's {len(workers)} worker processes (all leagues)",
        ("pid", "in play", "loop lag ms", "matches done"),
    )
    for worker in workers:
        shown.add_row(
            str(worker.pid), str(worker.in_play), f"{worker.loop_lag_ms:.1f}", str(worker.matches_done)
        )
    print_table(shown)


def pace(league: admin_pb2.LeagueInfo) -> str:
    """A ladder's progress: matches played, per minute while it runs, and what is left."""
    played = league.matches.get("finished", 0)
    parts = [f"played: {played} matches"]
    if league.matches_per_minute or league.in_play:
        parts.append(f"{league.matches_per_minute:.1f} matches/min now")
    parts.extend(left(league, played))
    return "; ".join(parts)


def left(league: admin_pb2.LeagueInfo, played: int) -> list[str]:
    """What is left of a ladder's match count and time budget, if it has them."""
    found = []
    if league.max_matches:
        found.append(f"{max(0, league.max_matches - played)} of its {league.max_matches} matches left")
    if league.time_budget_seconds:
        spent = time.time() - league.started_at if league.started_at else 0.0
        remaining = max(0.0, league.time_budget_seconds - spent)
        found.append(f"{duration(remaining)} of its {duration(league.time_budget_seconds)} left")
    return found


def held(count: int, seconds: float, lag_ms: float, limit_ms: float) -> str:
    """Why and for how long admission control holds matches back, in a sentence."""
    return (
        f"held back: {count} matches for {duration(seconds)} now: the server's loop lags "
        f"{lag_ms:.0f} ms (p99 over the last second), above its {limit_ms:.0f} ms limit "
        "(5% of the decision limit, at least 20 ms)"
    )


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``2 h 7 min``."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"
