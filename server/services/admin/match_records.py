"""A match record as the caller may see it: secrets of a match whose seed is in play left
out for anyone but the admin, a seat's stderr and logs only for its bot's owner.
"""

from __future__ import annotations

import asyncio

from kingmaker.ladder.bots import bots
from kingmaker.ladder.matches import history, seat_logs, secrecy
from kingmaker.ladder.matches.match_reads import match_log
from kingmaker.ladder.storage.models import MatchStatus
from kingmaker.server.refereeing.referee import MatchReport
from kingmaker.server.services import convert
from kingmaker.server.services.admin.base import CALLER, AdminBase
from kingmaker.server.services.permissions import Caller
from kingmaker.v1 import admin_pb2


class MatchRecords(AdminBase):
    """Matches as the caller may see them (``ladder.secrecy``, and stderr only for a bot's owner)."""

    async def _unstored(self, report: MatchReport) -> admin_pb2.MatchRecord:
        """A match played between commands, as RunMatch returns it and GetMatch finds it again."""
        record = convert.report_record(report)
        record.seat_logs.extend(convert.report_seat_logs(report))
        return await self._for_caller(record)

    async def _stored(self, match_id: int, with_log: bool) -> admin_pb2.MatchRecord:
        summary = await asyncio.to_thread(history.match_summary, self.db, match_id)
        log = None
        record = convert.stored_record(summary, log)
        if with_log and summary.status == MatchStatus.FINISHED:
            log = await asyncio.to_thread(match_log, self.db, match_id)
            record = convert.stored_record(summary, log)
            logs = await asyncio.to_thread(seat_logs.match_logs, self.db, match_id)
            record.seat_logs.extend(convert.seat_log_message(seat_log) for seat_log in logs)
        return await self._for_caller(record)

    async def _for_caller(self, record: admin_pb2.MatchRecord) -> admin_pb2.MatchRecord:
        """What the caller may see of a match: a seat's stderr and logs only for its bot's owner;
        for anyone but the admin, nothing derived from its seed while it or a match sharing the
        seed is not over (``ladder.secrecy``)."""
        caller = CALLER.get()
        record.revealed = True
        if caller.is_admin:
            return record
        owners = await asyncio.to_thread(bots.owners_of, self.db, [seat.bot for seat in record.seats])
        for seat in record.seats:
            if not caller.owns(owners.get(seat.bot)):
                seat.stderr_tail = ""
        kept = [log for log in record.seat_logs if caller.owns(owners.get(log.bot))]
        del record.seat_logs[:]
        record.seat_logs.extend(kept)
        if record.match_id.isdigit():  # a stored match (unstored ones are the admin's own)
            verdict = await asyncio.to_thread(secrecy.secrets_verdict, self.db, int(record.match_id))
            if not verdict.shown:
                hide_secrets(record, verdict.reason)
        return record

    async def _page_for_caller(
        self, caller: Caller, records: list[admin_pb2.MatchRecord], page: list[history.MatchSummary]
    ) -> None:
        """A page of matches as a caller other than the admin may see it: seeds of matches not
        over or with twins not over left out, stderr only of their own bots' seats."""
        keys = [(summary.match_id, summary.game, summary.seed, summary.status) for summary in page]
        hidden = await asyncio.to_thread(secrecy.hidden_among, self.db, keys)
        names = sorted({seat.bot for record in records for seat in record.seats})
        owners = await asyncio.to_thread(bots.owners_of, self.db, names)
        for record, summary in zip(records, page, strict=True):
            for seat in record.seats:
                if not caller.owns(owners.get(seat.bot)):
                    seat.stderr_tail = ""
            if summary.match_id in hidden:
                hide_secrets(record, "")


def hide_secrets(record: admin_pb2.MatchRecord, reason: str) -> None:
    """Leave out of a match whatever tells its seed's draws: the seed, every decision and how
    many there were (each seat's think times count them), the observation digests and its seats'
    logs and stderr, its owner's too (a bot may print what it was shown)."""
    record.revealed = False
    record.seed = 0
    del record.decisions[:]
    del record.seat_times[:]
    del record.observation_digests[:]
    del record.seat_logs[:]
    for seat in record.seats:
        seat.stderr_tail = ""
    record.status_reason = "; ".join(text for text in (record.status_reason, reason) if text)


def summary(record: admin_pb2.MatchRecord) -> admin_pb2.MatchRecord:
    """A record as a listing holds it: without its decisions and digests."""
    del record.decisions[:]
    del record.observation_digests[:]
    return record
