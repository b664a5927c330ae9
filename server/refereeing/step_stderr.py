"""Reading each step's slice of a managed bot's stderr, once its match is over.

The referee marks, per request, where the bot's stderr file stood when the request was sent and
when the reply came (``SeatState.step_marks``); this reads those slices from the file in one
pass, never more than the bounds of ``ladder.step_output`` keep, however much the bot printed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO

from kingmaker.ladder.step_output import SEAT_BYTES, STEP_BYTES, StepOutput, bounded


def read_steps(stderr: IO[bytes], marks: Sequence[tuple[int, int, int]]) -> tuple[StepOutput, ...]:
    """Each marked step's output, (decision, start, end) per step, within the bounds, read from
    the bot's open stderr file (an in-memory file: ``launcher.memory_file``)."""
    printed = [(decision, start, end) for decision, start, end in marks if end > start]
    if not printed:
        return ()
    read: list[tuple[int, bytes, int]] = []
    left = SEAT_BYTES
    try:
        descriptor = stderr.fileno()
        for decision, start, end in printed:
            size = min(end - start, STEP_BYTES, left)
            data = os.pread(descriptor, size, start) if size > 0 else b""
            left -= len(data)
            read.append((decision, data, end - start))
    except (OSError, ValueError):  # (ValueError: the file was closed)
        return ()
    return bounded(read)
