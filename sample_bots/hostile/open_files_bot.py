"""Opens /dev/null again and again without closing it.

Reports ``opened <n> files, then <errno>`` (EMFILE at the open-files limit) or ``opened <BOUND>
files`` at its own safety bound (default 100000).
"""

from __future__ import annotations

import os
import sys

from kingmaker.sample_bots.hostile.common import errno_name, report


def main(bound: int) -> None:
    opened: list[int] = []
    try:
        while len(opened) < bound:
            opened.append(os.open(os.devnull, os.O_RDONLY))
    except OSError as error:
        report(f"opened {len(opened)} files, then {errno_name(error)}")
        return
    report(f"opened {len(opened)} files")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
