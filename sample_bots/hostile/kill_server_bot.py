"""Tries to kill the server: SIGKILL to its parent (``kill(getppid(), SIGKILL)``), then to a pid
it is given (the server's, as a bot might learn it).

Usage: ``kill_server_bot.py PID``; reports ``parent <pid>: <outcome>`` and ``server <PID>:
<outcome>``, the outcome ``killed`` or the errno (EPERM: not its process; ESRCH: not visible).
"""

from __future__ import annotations

import os
import signal
import sys

from kingmaker.sample_bots.hostile.common import errno_name, report


def attempt(what: str, pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        report(f"{what} {pid}: killed")
    except OSError as error:
        report(f"{what} {pid}: {errno_name(error)}")


def main(server: int) -> None:
    attempt("parent", os.getppid())
    attempt("server", server)


if __name__ == "__main__":
    main(int(sys.argv[1]))
