"""Looks through /proc for other processes' bot tokens (``KINGMAKER_TOKEN`` in their environment).

Reports ``saw <n> other processes, read <m> environments, found <k> tokens`` and then, for the
first environment it could not read, the error (EACCES when another user's, ESRCH/ENOENT gone).
"""

from __future__ import annotations

import os
from pathlib import Path

from kingmaker.sample_bots.hostile.common import errno_name, report


def main() -> None:
    own = os.environ.get("KINGMAKER_TOKEN", "")
    others = [
        entry for entry in Path("/proc").iterdir() if entry.name.isdigit() and int(entry.name) != os.getpid()
    ]
    read, tokens, refused = 0, 0, ""
    for entry in others:
        try:
            environment = (entry / "environ").read_bytes()
        except OSError as error:
            refused = refused or errno_name(error)
            continue
        read += 1
        for variable in environment.split(b"\0"):
            if variable.startswith(b"KINGMAKER_TOKEN=") and variable[16:].decode(errors="replace") != own:
                tokens += 1
    report(f"saw {len(others)} other processes, read {read} environments, found {tokens} tokens")
    if refused:
        report(f"refused: {refused}")


if __name__ == "__main__":
    main()
