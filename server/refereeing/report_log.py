"""A match report's log as the ladder stores it: the joint actions as data, the observations'
digests and the timings, or all three packed (``compact_logs.pack_log``).

The central server used to turn every action into data and pack the log itself, a quarter of its
CPU per match; a worker process (or a Ray node) that referees a match holds the actions already,
so it packs the log there (``MatchHost.play``) and the server stores the blobs as they come.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from kingmaker.games.api import Action
from kingmaker.games.serial import action_to_data
from kingmaker.ladder.matches.compact_logs import pack_log
from kingmaker.ladder.matches.think_times import THINK_KEY, rounded
from kingmaker.ladder.records import PackedLog, actions_to_data
from kingmaker.server.refereeing.referee import MatchReport

ACTION_DATA_KEPT = 50_000
"""Actions whose data a process keeps (a game's whole action space usually fits)."""
_ACTION_DATA: dict[int, tuple[Action, Any]] = {}


def _action_data(action: Action) -> Any:
    """``serial.action_to_data`` of an action, written once per action object: engines hand out
    the same action objects match after match, and writing each anew (a generic walk of its
    dataclass) was a third of packing a log. Held with the action, so that its id stays its own;
    the data is read only, as every log's reader does."""
    found = _ACTION_DATA.get(id(action))
    if found is not None and found[0] is action:
        return found[1]
    data = action_to_data(action)
    if len(_ACTION_DATA) >= ACTION_DATA_KEPT:
        _ACTION_DATA.clear()
    _ACTION_DATA[id(action)] = (action, data)
    return data


def log_actions(report: MatchReport) -> list[dict[str, Any]]:
    """The joint actions in order, as data (``records.actions_to_data``)."""
    return actions_to_data(
        [{decision.seat: decision.action for decision in joint} for joint in report.decisions], _action_data
    )


def log_digests(report: MatchReport) -> list[list[str]]:
    return [list(seat) for seat in report.observation_digests]


def think_timings(report: MatchReport) -> dict[str, Any]:
    """The match's duration and each seat's think times: what its summary reads of the timings."""
    return {
        "duration_s": round(report.finished_at - report.started_at, 3),
        THINK_KEY: rounded(report.think_ms),
    }


def log_timings(report: MatchReport) -> dict[str, Any]:
    """``think_timings`` and, per joint decision, like the actions: seat -> [ms charged (None: not
    asked), source]."""
    return {
        **think_timings(report),
        "decisions": [
            {str(decision.seat): [decision.elapsed_ms, decision.source] for decision in joint}
            for joint in report.decisions
        ],
    }


def packed_log(report: MatchReport) -> PackedLog:
    return pack_log(report.game, log_actions(report), log_digests(report), log_timings(report))


def as_sent(report: MatchReport) -> MatchReport:
    """The report as a worker (a process or a Ray node) sends it to the central server: its log
    packed, and without the actions and digests the packed log holds. Unpickling every decision's
    action again was most of the server's CPU for reading a worker's report, for parts that only
    the log needs."""
    return dataclasses.replace(report, packed_log=packed_log(report), decisions=(), observation_digests=())
