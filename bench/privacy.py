"""What showing a reply field by field costs (``server/services/privacy.py``), beside what the
server pays anyway to send it: serialising it.

    python bench/privacy.py

Every reply to a caller other than the admin is walked: private fields cleared, every text said
with neutral names for the host's folders. The figure is the walk of a stored match (GetMatch:
4 seats with stderr, N decisions), its reference the same reply's ``SerializeToString``,
measured in turn, medians of 9 runs with their min-max.
"""

from __future__ import annotations

import time

from google.protobuf import any_pb2
from table import Row, alternate, print_rows

from kingmaker.server.services import privacy
from kingmaker.server.services.permissions import ANYONE
from kingmaker.v1 import admin_pb2, common_pb2

RUNS = 9


def match(decisions: int) -> admin_pb2.MatchRecord:
    record = admin_pb2.MatchRecord(match_id="1", game="kingdoms", status="finished")
    for seat in range(4):
        record.seats.append(
            common_pb2.SeatResult(seat=seat, bot=f"bot{seat}", detail="finished", stderr_tail="x\n" * 200)
        )
    action = any_pb2.Any(type_url="type.googleapis.com/kingmaker.kingdoms.v1.Action", value=b"\x08\x01")
    for _ in range(decisions):
        record.decisions.append(
            admin_pb2.JointAction(
                actions=[admin_pb2.SeatAction(seat=s, action=action, source="bot") for s in range(4)]
            )
        )
    return record


def timed(work: object, record: admin_pb2.MatchRecord) -> float:
    copy = admin_pb2.MatchRecord()
    copy.CopyFrom(record)
    start = time.perf_counter()
    if work == "redact":
        privacy.subjects(copy)
        privacy.redact(copy, privacy.for_caller(ANYONE, {}))
    else:
        copy.SerializeToString()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    rows = []
    for decisions in (0, 1_000, 10_000):
        record = match(decisions)
        ours, reference = alternate(
            lambda record=record: timed("redact", record),
            lambda record=record: timed("serialize", record),
            RUNS,
        )
        rows.append(
            Row(
                "privacy",
                f"GetMatch, {decisions:,} decisions, shown to anyone",
                "ms",
                ours,
                "serialising it",
                reference,
            )
        )
    print_rows(rows, "Showing a reply field by field")


if __name__ == "__main__":
    main()
