"""What went wrong, per bot, at the end of `league run` and `match run`.

Both commands exit with ``FAULT_EXIT`` (3) when any seat ended by its bot's fault, so a script can
tell "the server ran everything, and some bot misbehaved" (3) from "it could not run" (1) and from
"all clean" (0). Seats the server failed (void matches) are listed but do not change the exit.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from rich.table import Table

from kingmaker.ladder.outcomes import EndReason
from kingmaker.server.cli.common import console
from kingmaker.server.web.seat_words import end_reason_word
from kingmaker.v1 import admin_pb2, common_pb2

FAULT_EXIT = 3


class FaultSummary:
    def __init__(self) -> None:
        self.by_bot: dict[str, Counter[str]] = defaultdict(Counter)
        self.bot_faults = 0
        self.seen: set[str] = set()

    def add(self, record: admin_pb2.MatchRecord) -> None:
        """Count the faulty seats of a finished (or void) match, once per match."""
        if record.match_id in self.seen:
            return
        self.seen.add(record.match_id)
        for seat in record.seats:
            if seat.end_reason in (common_pb2.END_REASON_UNSPECIFIED, common_pb2.END_REASON_FINISHED):
                continue
            reason = EndReason(end_reason_word(seat.end_reason))
            self.by_bot[seat.bot][reason.value] += 1
            self.bot_faults += reason.is_bot_fault

    def print(self) -> None:
        if not self.by_bot:
            console.print("no faults")
            return
        table = Table(title="Faults (seat endings other than finished)")
        table.add_column("bot")
        table.add_column("endings")
        for bot, reasons in sorted(self.by_bot.items()):
            table.add_row(bot, ", ".join(f"{count} {reason}" for reason, count in reasons.most_common()))
        console.print(table)
