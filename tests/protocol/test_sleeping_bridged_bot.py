"""A launched bot that sleeps (using no CPU) cannot hold a match for minutes.

It is charged CPU time, so sleeping under the wall ceiling was never late: a bridged bot sleeping
seven seconds a decision at a two-second limit made one match last 4.5 minutes. Now its wall time
over the limit comes out of one budget a match (``deadlines.match_wall_slack_ms``); once spent,
it is waited for like a remote bot, and struck."""

from __future__ import annotations

import sys

import pytest
from protocol_support import bridged

from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.background import BackgroundServer
from kingmaker.server.refereeing.matches import play_match
from kingmaker.server.seats.deadlines import TimeControl, match_wall_slack_ms, wall_ceiling_ms

from support import ad_hoc, bot_command

pytestmark = pytest.mark.faults

CONTROL = TimeControl(decision_ms=200, max_strikes=1000)
SLEEP_S = 1.0
# Answers every request, naming it, after sleeping a second: in time by the wall ceiling (1.25 s).
SLEEPER = (
    "import json, sys, time\n"
    "for line in sys.stdin:\n"
    "    request = json.loads(line).get('actionRequest')\n"
    "    if request:\n"
    f"        time.sleep({SLEEP_S})\n"
    "        print(json.dumps({'matchId': request['matchId'], 'requestId': request['requestId'],\n"
    "                          'legalActionIndex': 0}), flush=True)\n"
)


def test_a_launched_bridged_bot_that_sleeps_is_struck_once_its_match_wall_budget_is_spent(
    server: BackgroundServer,
) -> None:
    assert wall_ceiling_ms(CONTROL.decision_ms) > SLEEP_S * 1000, "each sleep alone is under the ceiling"
    sleeper = ad_hoc("sleeper", bridged(sys.executable, "-c", SLEEPER))
    entrants = [sleeper, ad_hoc("sound", bot_command("random_bot.py"))]
    report = server.run(play_match(server.server.roster, "kingdoms", entrants, 5, {}, CONTROL, "sleeper"))
    seat = report.seats[0]
    assert seat.end_reason is EndReason.FINISHED
    sources = [d.source for joint in report.decisions for d in joint if d.seat == 0]
    assert seat.strikes == sources.count("default") > 0, "before, no sleep was ever late"
    # In time while its match wall budget lasted, then waited for as a remote bot: late ever after.
    first_late = sources.index("default")
    # (Seen once, in a full run beside a type check: a 'bot' after the first late. A reply late
    # while the budget still lasts, its sleep stretched past the ceiling by a delay the referee did
    # not count as the machine's, is followed by replies in time again; the charged times say
    # which decision was late first, and by how much.)
    charged = [(d.source, d.elapsed_ms) for joint in report.decisions for d in joint if d.seat == 0]
    assert set(sources[first_late:]) == {"default"}, charged
    assert first_late >= match_wall_slack_ms(CONTROL) / (wall_ceiling_ms(CONTROL.decision_ms) - 200) - 1
