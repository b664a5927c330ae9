"""What a seat's bot printed on stderr while answering each request: its owner's per-step log.

The referee notes where the bot's stderr stood when each request was sent and when its reply
came; the slice between is that step's output. It is bounded twice, so a bot printing megabytes
costs the server no more than a quiet one: each step keeps its first ``STEP_BYTES`` bytes, and a
seat keeps at most ``SEAT_BYTES`` of step text per match (later steps keep only how many bytes
they wrote, and say their text was cut). A match of n seats stores at most n x ``SEAT_BYTES``
of step text (before compression), beside the seat's own stderr log (``seat_logs``).

Stored with the seat's log (``SeatLog.steps``) as deflated JSON, ``[[decision, text, bytes]]``;
a step that printed nothing is not stored at all.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

STEP_BYTES = 2 * 1024
"""The most kept of one step's output (its start: what the bot said first about the request)."""
SEAT_BYTES = 16 * 1024
"""The most step text kept per seat per match."""


@dataclass(frozen=True)
class StepOutput:
    decision: int
    """The joint decision the seat was asked for (0-based, as in the match's log and replay)."""
    text: str
    """What it printed (its start, when it printed more than is kept; empty once the seat's
    budget is spent)."""
    bytes: int
    """How many bytes it printed in all during this step."""

    @property
    def cut(self) -> bool:
        return len(self.text.encode()) < self.bytes


def bounded(steps: list[tuple[int, bytes, int]]) -> tuple[StepOutput, ...]:
    """Steps as read (decision, the bytes read, how many were written), within the bounds: each
    step's text at most ``STEP_BYTES``, the seat's at most ``SEAT_BYTES`` in all."""
    left = SEAT_BYTES
    kept = []
    for decision, data, written in steps:
        if written <= 0:
            continue
        piece = data[: min(STEP_BYTES, left)]
        text = piece.decode(errors="replace")
        while len(text.encode()) > len(piece):  # a character cut in two: its replacement is longer
            text = text[:-1]
        left -= len(text.encode())
        kept.append(StepOutput(decision, text, written))
    return tuple(kept)


def pack_steps(steps: tuple[StepOutput, ...] | list[StepOutput]) -> bytes | None:
    if not steps:
        return None
    rows = [[step.decision, step.text, step.bytes] for step in steps]
    return zlib.compress(json.dumps(rows, separators=(",", ":")).encode(), 9, wbits=-15)


def unpack_steps(blob: bytes | None) -> list[StepOutput]:
    if not blob:
        return []
    try:
        rows = json.loads(zlib.decompress(blob, wbits=-15))
    except (zlib.error, ValueError):
        return []  # damaged: the owner reads the match without its per-step output
    return [StepOutput(int(decision), str(text), int(size)) for decision, text, size in rows]
