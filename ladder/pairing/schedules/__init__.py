"""League schedules: who meets whom, in which seats, with which seed.

Small classes on one base (``base.Schedule``), in the manner of cutechess-cli's tournaments:
``RoundRobin``, ``Gauntlet`` and the continuous ``Matchmaker``. Planning is pure: no database, no
clock; the league store hands in the progress so far and writes the matches it gets back.
"""

from kingmaker.ladder.pairing.schedules.base import PlannedMatch, Progress, Schedule, derive_seed
from kingmaker.ladder.pairing.schedules.gauntlet import Gauntlet
from kingmaker.ladder.pairing.schedules.matchmaking import Matchmaker
from kingmaker.ladder.pairing.schedules.round_robin import RoundRobin

__all__ = [
    "Gauntlet",
    "Matchmaker",
    "PlannedMatch",
    "Progress",
    "RoundRobin",
    "Schedule",
    "derive_seed",
]
