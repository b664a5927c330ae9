"""Keeping a version's trial matches: each match its validation and its A/B duel play is written
as it ends (``ladder.matches.trial_matches``), with the log packed as a ladder match's, so its
owner can list and replay it. Never through the ladder's result path: nothing is rated.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from kingmaker.ladder.matches.trial_matches import TrialSeat, record_trial
from kingmaker.ladder.storage.db import Database
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.refereeing.report_log import packed_log
from kingmaker.server.scheduling.duels import Played
from kingmaker.server.seats.roster import Entrant


def keeper(db: Database, bot: str, version: int, purpose: str) -> Played:
    """What validation (``purpose`` "validation") or the duel ("duel") calls after each match."""

    async def keep(report: MatchReport, entrants: Sequence[Entrant]) -> None:
        seats = [
            TrialSeat(
                entrant.name, entrant.version, seat.score, seat.rank, seat.end_reason.value, seat.detail
            )
            for seat, entrant in zip(report.seats, entrants, strict=True)
        ]
        # Packed here, off the loop: a worker that refereed it has packed it already.
        log = report.packed_log
        if log is None:
            log = await asyncio.to_thread(packed_log, report)
        await asyncio.to_thread(
            record_trial, db, bot, version, purpose, report.game, report.edition, report.seed,
            report.options, seats, log,
        )  # fmt: skip

    return keep
