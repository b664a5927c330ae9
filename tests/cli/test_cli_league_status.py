"""How a league's state reads: a continuous ladder shows matches played, per minute and what is left
of its budget, not a bar toward a total it keeps pushing back ("416 of 417 matches"); held-back
matches say why and for how long; away bots are named. Pure rendering, no server."""

from __future__ import annotations

import time
from collections.abc import Iterator

from kingmaker.server.cli import league_status
from kingmaker.server.cli.common import console
from kingmaker.server.cli.leagues import ladder_line, run_with_progress
from kingmaker.v1 import admin_pb2


def ladder(**fields: object) -> admin_pb2.LeagueInfo:
    league = admin_pb2.LeagueInfo(
        name="open", game="kingdoms", format="ladder", players=2, bots=["a", "b", "c"], **fields
    )
    league.matches.update({"finished": 412, "running": 2, "scheduled": 7, "cancelled": 3})
    return league


def printed(league: admin_pb2.LeagueInfo) -> str:
    with console.capture() as captured:
        league_status.print_league(league)
    return " ".join(captured.get().split())


def test_a_ladder_reads_as_matches_per_minute_and_what_is_left() -> None:
    shown = printed(ladder(in_play=2, matches_per_minute=63.5, max_matches=1000, away=["c"]))
    assert "played: 412 matches; 63.5 matches/min now; 588 of its 1000 matches left" in shown
    assert "away: c (not connected" in shown
    budget = printed(ladder(time_budget_seconds=1800, started_at=time.time() - 60))
    assert "of its 30 min 0 s left" in budget
    assert "29 min" in budget or "28 min" in budget  # a slow machine may take a while to get here


def test_held_back_matches_say_why_and_for_how_long() -> None:
    shown = printed(
        ladder(
            in_play=1, held_back=2, held_back_seconds=14.2, held_total_seconds=63.0, server_lag_ms=130.4,
            lag_limit_ms=100.0,
        )
    )  # fmt: skip
    assert "held back: 2 matches for 14 s now: the server's loop lags 130 ms" in shown
    assert "above its 100 ms limit (5% of the decision limit, at least 20 ms)" in shown
    assert "(1 min 3 s in all this run)" in shown


class StreamingClient:
    """Answers RunLeague with the updates given, as the server's stream would."""

    def __init__(self, updates: list[admin_pb2.LeagueProgress]) -> None:
        self.updates = updates

    def stream(self, method: str, request: object) -> Iterator[admin_pb2.LeagueProgress]:
        assert method == "RunLeague"
        yield from self.updates


def followed(league: admin_pb2.LeagueInfo, updates: list[admin_pb2.LeagueProgress]) -> str:
    with console.capture() as captured:
        _, reason = run_with_progress(StreamingClient(updates), league.name, 0, league)
    assert reason == "stopped by an admin"
    return captured.get()


def test_a_ladder_run_shows_its_pace_not_a_bar_toward_what_it_planned() -> None:
    updates = [
        admin_pb2.LeagueProgress(league="open", finished=416, running=1, waiting=0, matches_per_minute=55.0),
        admin_pb2.LeagueProgress(league="open", finished=417, done=True, reason="stopped by an admin"),
    ]
    assert ladder_line(updates[0], ladder()) == "416 played, 1 running, 55.0 matches/min"
    budget = ladder(time_budget_seconds=600, started_at=time.time())
    assert ladder_line(updates[0], budget).startswith("416 played, 1 running, 55.0 matches/min, 9 min")
    shown = followed(ladder(), updates)  # the last line the run leaves on the screen
    assert "417 played, 0 running" in shown
    assert "417" not in shown.replace("417 played", ""), "no bar, no total"
    counted = followed(ladder(max_matches=500), updates)
    assert "417/500" in counted, "a ladder with a match count has a bar toward that count"
    fixed = admin_pb2.LeagueInfo(name="rr", format="round_robin", players=2)
    final = admin_pb2.LeagueProgress(
        league="rr", finished=9, waiting=1, done=True, reason="stopped by an admin"
    )
    assert "9/10" in followed(fixed, [final]), "a round robin's bar counts toward its planned matches"
