"""The background task that keeps competitions up to their clock: every second it applies the
deadlines that passed (including one that passed while the server was down: the first look is at
start-up), decides the finals' stages that ended, stops the open ladders of closed competitions
and runs the leagues that should be playing (``competition_phases.apply_clock``); every minute,
it tells the authors of entries whose deadline is a day ahead (``deadline_notices``)."""

from __future__ import annotations

import asyncio
import logging
import time

from kingmaker.ladder.competitions.competition_clock import competition_now
from kingmaker.ladder.competitions.competition_phases import ClockWork, apply_clock
from kingmaker.ladder.competitions.deadline_notices import tell_deadlines
from kingmaker.ladder.errors import LadderError
from kingmaker.ladder.leagues import league_lifecycle, leagues
from kingmaker.ladder.storage.db import Database
from kingmaker.server.scheduling.scheduler import LeagueRunner

log = logging.getLogger("kingmaker.server")

TICK_S = 1.0
DEADLINES_S = 60.0
"""How often the deadlines ahead are looked for (``deadline_notices``: each told once)."""


async def keep_competitions(db: Database, runner: LeagueRunner, tick_s: float = TICK_S) -> None:
    """Look at the clock every ``tick_s`` until cancelled (and every ``DEADLINES_S`` for the
    deadlines to tell authors of); a failed look is logged and retried."""
    told_at = -DEADLINES_S
    while True:
        try:
            await look(db, runner)
            if time.monotonic() - told_at >= DEADLINES_S:
                told_at = time.monotonic()
                await asyncio.to_thread(tell_deadlines, db, competition_now())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("competitions: could not apply the clock; trying again")
        await asyncio.sleep(tick_s)


async def look(db: Database, runner: LeagueRunner) -> ClockWork:
    """One look at the clock, and the leagues it starts or stops."""
    work = await asyncio.to_thread(apply_clock, db, competition_now())
    for name in work.changed:
        log.info("competition %s moved on", name)
    for name in work.to_stop:
        try:
            await asyncio.to_thread(league_lifecycle.stop_league, db, name)
            log.info("competition ladder %s stopped at its deadline", name)
        except LadderError:
            pass  # stopped already
    for name in work.to_run:
        info = await asyncio.to_thread(leagues.get_league, db, name)
        if not info.finished and not info.paused and not runner.is_running(info.id):  # an admin's pause holds
            await runner.start(name)
    for name in work.entrants_changed:  # a promotion moved an entry between tier ladders
        info = await asyncio.to_thread(leagues.get_league, db, name)
        await runner.entrants_changed(info.id)
    return work
