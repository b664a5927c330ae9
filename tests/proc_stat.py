"""Reading ``/proc/PID/stat`` in the tests: its fields numbered as proc(5) numbers them (from 1),
the command name (field 2, in parentheses, and free to hold spaces or ")") skipped safely."""

from __future__ import annotations

import os
from pathlib import Path

STATE, PARENT, NICE, START_TIME = 3, 4, 19, 22
"""The fields the tests read: the state letter, the parent's pid, the niceness, the start time."""


def stat_field(pid: int, number: int) -> str:
    """Field ``number`` (proc(5)'s numbering, 3 or more) of the process's stat line; ``OSError``
    (``FileNotFoundError``) once the process is gone."""
    line = Path(f"/proc/{pid}/stat").read_text()
    return line[line.rindex(")") + 2 :].split()[number - 3]


def alive(pid: int) -> bool:
    """Whether the process exists and is not a zombie (exited, not yet reaped)."""
    try:
        os.kill(pid, 0)
        return stat_field(pid, STATE) != "Z"
    except (ProcessLookupError, FileNotFoundError):
        return False
