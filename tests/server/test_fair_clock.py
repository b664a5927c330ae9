"""The clock charges a bot only its own time: never the server's own queueing.

Before, a reply that arrived while the server's event loop was busy waited there, and that wait
was charged to the bot: under load, bots that answered at once got late strikes, forfeits and
suspensions."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time

from kingmaker.ladder import bots
from kingmaker.server.background import BackgroundServer
from kingmaker.server.deadlines import TimeControl
from kingmaker.server.matches import play_match
from kingmaker.server.roster import Entrant

INSTANT = (sys.executable, "-m", "kingmaker.sample_bots.instant_bot")


def test_an_instant_bot_is_not_late_when_the_server_loop_is_busy(server: BackgroundServer) -> None:
    stop = threading.Event()

    def hog() -> None:
        # Block the server's loop for 120 ms every 150 ms, as a burst of other work would:
        # more than the 50 ms limit plus the 50 ms grace.
        while not stop.is_set():
            server.loop.call_soon_threadsafe(time.sleep, 0.12)
            time.sleep(0.15)

    # Remote bots: charged by the wall clock (the server cannot see their CPU), so only the
    # server's lag stands between them and a late strike.
    entrants, processes = [], []
    for name in ("a", "b"):
        info, token = bots.register_bot(server.server.db, name, ["kingdoms"])
        environment = {**os.environ, "KINGMAKER_SERVER": server.address, "KINGMAKER_TOKEN": token}
        processes.append(subprocess.Popen(INSTANT, env=environment))
        entrants.append(Entrant(name, bot_id=info.id))
    blocking = threading.Thread(target=hog)
    try:
        control = TimeControl(decision_ms=50, max_strikes=1000)
        playing = play_match(server.server.roster, "kingdoms", entrants, 3, {}, control, "fair")
        blocking.start()
        report = server.run(playing, timeout=300)
    finally:
        stop.set()
        if blocking.is_alive():
            blocking.join()
        for process in processes:
            process.terminate()
            process.wait(10)
    decisions = len(report.decisions)
    assert decisions > 50
    # Before the fix a good share of the ~140 replies were charged the loop's 120 ms and struck.
    assert [seat.strikes for seat in report.seats] == [0, 0]
    assert all(seat.end_reason.value == "finished" for seat in report.seats)


def test_the_loop_lag_meter_sees_a_blocked_loop() -> None:
    from kingmaker.server.loop_lag import LoopLag

    async def scenario() -> None:
        lag = LoopLag()
        lag.start()
        loop = asyncio.get_running_loop()
        before = lag.reading(loop.time())
        await asyncio.sleep(0.02)
        time.sleep(0.1)  # the loop is blocked
        after = lag.reading(loop.time())
        lag.stop()
        assert 0.09 <= after - before <= 0.2
        assert lag.recent_ms() >= 0

    asyncio.run(scenario())
