"""How a seat's log reads in the terminal (`bot logs`, `match show`): what the bot's author needs to
see why it lost a seat, or what it printed while it played."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from kingmaker.server.cli.common import console

if TYPE_CHECKING:
    from kingmaker.v1 import admin_pb2


def print_seat_log(log: admin_pb2.SeatLog, heading: bool = True) -> None:
    from kingmaker.server.web.seat_words import end_reason_word

    if heading:
        when = (
            datetime.fromtimestamp(log.finished_at, UTC).strftime("%Y-%m-%d %H:%M") if log.finished_at else ""
        )
        version = f" version {log.version}" if log.version else ""
        console.print(
            f"match {log.match_id} ({log.game}, {when}) seat {log.seat}: {log.bot}{version}",
            style="bold",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    ended = end_reason_word(log.end_reason)
    lines = [f"  ended: {ended}" + (f" ({log.detail})" if log.detail else "")]
    lines += [f"  strike on request {s.request_id}: {s.kind}: {s.detail}" for s in log.strikes]
    if log.exit:
        lines.append(f"  its process {log.exit}")
    if log.stderr_bytes:
        shown = len(log.stderr.encode())
        cut = f", the last {shown:,} shown" if shown < log.stderr_bytes else ""
        lines.append(f"  stderr ({log.stderr_bytes:,} bytes{cut}):")
        lines += ["    " + line for line in log.stderr.rstrip("\n").splitlines()]
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def print_steps(record: admin_pb2.MatchRecord) -> None:
    """Per seat of the caller's own bots, what it printed on stderr at each step (`match show --steps`)."""
    if not record.revealed:
        console.print("no step output: " + (record.status_reason or "the match's secrets do not show yet"))
        return
    printed = [log for log in record.seat_logs if log.steps]
    if not printed:
        console.print("no step output: none of your bots' seats printed on stderr while asked")
        return
    for log in printed:
        console.print(f"seat {log.seat}, {log.bot}, stderr per step:", style="bold", markup=False)
        for step in log.steps:
            shown = len(step.text.encode())
            cut = f", {shown:,} kept" if shown < step.bytes else ""
            console.print(
                f"  step {step.decision} ({step.bytes:,} bytes{cut}):", markup=False, highlight=False
            )
            for line in step.text.rstrip("\n").splitlines():
                console.print("    " + line, markup=False, highlight=False, soft_wrap=True)


def steps_data(log: admin_pb2.SeatLog) -> dict[str, Any]:
    return {
        "seat": log.seat,
        "bot": log.bot,
        "steps": [{"decision": step.decision, "text": step.text, "bytes": step.bytes} for step in log.steps],
    }
