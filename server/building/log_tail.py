"""The telling lines of a program's log, to quote in a one-line refusal.

A build or a validation that fails says why in the program's own words (a compiler's first error,
an interpreter's parse error), not only with its exit code.
"""

from __future__ import annotations

import re

TAIL_CHARS = 400
_ERROR = re.compile(r"\berror\b", re.IGNORECASE)


def telling_lines(log: str, chars: int = TAIL_CHARS) -> str:
    """The first line that says "error" (a compiler's first is the one to fix) and the log's
    last line, joined by `` / ``; the last two lines when none says it; at most ``chars``
    characters of each; empty for an empty log."""
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    first_error = next((line for line in lines if _ERROR.search(line)), None)
    kept = lines[-2:] if first_error is None or first_error in lines[-2:] else [first_error, lines[-1]]
    return " / ".join(line if len(line) <= chars else line[:chars] + "…" for line in kept)


def ending(log: str) -> str:
    """``"; its log says: ..."`` to add to a reason, or nothing for an empty log."""
    told = telling_lines(log)
    return f"; its log says: {told}" if told else ""
