"""What the hostile bots share: one way to report an outcome."""

from __future__ import annotations

import errno
import sys


def report(outcome: str) -> None:
    """The one line a test reads: ``hostile: <outcome>``."""
    print(f"hostile: {outcome}", file=sys.stderr, flush=True)


def errno_name(error: OSError) -> str:
    """``EACCES``, ``ENOENT``, ... for an OSError (its class name if it has no errno)."""
    if error.errno is None:
        return type(error).__name__
    return errno.errorcode.get(error.errno, str(error.errno))
