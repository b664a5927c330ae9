"""The live boards' cost to the referee (``bench/referee.py --live``).

The live boards (``server/live.py``) are measured on one server, alternating: its referee with the
live hub and nobody watching, against the same referee with no hub at all (what publishing costs
when no spectator is there: it should be nothing), and with a spectator watching every match.
"""

from __future__ import annotations

import asyncio
import functools
import os
import tempfile
import time
from pathlib import Path

from rates import combined_rate
from referee import INSTANT
from table import Row, alternate_with_load

from kingmaker.ladder.bots import bots
from kingmaker.ladder.leagues import leagues
from kingmaker.ladder.matches import history
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.server.app import ServerConfig
from kingmaker.server.background import BackgroundServer
from kingmaker.server.live import Subscription


class RefereeBench:
    """A kingmaker server with managed bots (instant ones unless told), kept warm, playing leagues
    of one game."""

    def __init__(self, game: str, concurrency: int, command: list[str] = INSTANT, workers: int = 0) -> None:
        self.folder = tempfile.mkdtemp(prefix="km-bench-")
        os.environ["KINGMAKER_HOME"] = self.folder
        config = ServerConfig(
            address="127.0.0.1:0",
            database_url=f"sqlite:///{Path(self.folder) / 'bench.db'}",
            admin_token="bench",
            jail=False,  # trusted bench bots; the jail's start-up cost is not the referee's
            executor="processes" if workers else "local",
            workers=workers,
        )
        self.server = BackgroundServer(config)
        self.game = game
        self.concurrency = concurrency
        self.runs = 0
        self.names = [f"bot-{i}" for i in range(2 * concurrency)]
        for name in self.names:
            bots.register_bot(self.server.server.db, name, [game], command=command)
        self.play(rounds=2)  # warm-up: every bot process started once

    def play(self, rounds: int, live: str = "unwatched") -> float:
        """Decisions per second in steady state over leagues of the bots in pairs, ``concurrency``
        leagues at a time, as one combined rate over all their matches. ``live``: "unwatched" (the
        server as it runs), "off" (its referee given no live hub) or "watched" (a spectator
        subscribed to every match)."""
        db = self.server.server.db
        hub = self.server.server.live
        roster = self.server.server.roster
        assert roster is not None
        roster.live = None if live == "off" else hub
        self.runs += 1
        name = f"run-{self.runs}"
        pairs = [self.names[i : i + 2] for i in range(0, len(self.names), 2)]
        leagues_ = [f"{name}-{number}" for number in range(len(pairs))]
        watching = []
        for league, pair in zip(leagues_, pairs, strict=True):
            leagues.create_league(db, league, self.game, pair, rounds=rounds, seed=self.runs)
            if live == "watched":
                for match in history.list_matches(db, league=league, limit=1000):
                    watching.append(self.server.run(self._watch(str(match.match_id))))
        finishes: dict[str, list[tuple[float, int]]] = {league: [] for league in leagues_}

        async def run_all() -> None:
            await asyncio.gather(*(self._run(league, finishes[league]) for league in leagues_))

        self.server.run(run_all())
        for subscription in watching:
            hub.unsubscribe(subscription)
        return combined_rate(
            (finished, len(match_log(db, match_id).actions))
            for results in finishes.values()
            for finished, match_id in results
        )

    async def _watch(self, match_id: str) -> Subscription:
        """A spectator that takes every frame and draws nothing (the hub's and referee's cost only)."""
        return self.server.server.live.subscribe(match_id, lambda stamp, frame: None)

    async def _run(self, league: str, finishes: list[tuple[float, int]]) -> None:
        async for progress in self.server.server.leagues.watch(league, 1):
            if progress.last is not None:
                finishes.append((time.perf_counter(), progress.last.match_id))

    def close(self) -> None:
        self.server.stop()


def live_rows(quick: bool) -> list[Row]:
    """The referee's rate with the live hub and nobody watching, and with every match watched,
    each beside the same referee with no hub, alternating on one server (Kingdoms, instant bots)."""
    runs, rounds = (3, 6) if quick else (9, 12)
    referee = RefereeBench("kingdoms", 1)
    found = []
    try:
        # Runs of one referee drift ±7% here (measured both ways round): the goal is within that.
        cases = (("unwatched", "no spectator", "≥ 0.9 of no hub"), ("watched", "every match watched", ""))
        for live, who, goal in cases:
            ours, theirs, load = alternate_with_load(
                functools.partial(referee.play, rounds, live),
                functools.partial(referee.play, rounds, "off"),
                runs,
            )
            met = ours.median >= 0.9 * theirs.median if goal else None
            what = f"kingdoms, instant bots, 1 match at once, live hub, {who}"
            reference = "the same referee with no live hub"
            found.append(
                Row("referee", what, "decisions/s", ours, reference, theirs, goal=goal, met=met, load=load)
            )
    finally:
        referee.close()
    return found
