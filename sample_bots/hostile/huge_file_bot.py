"""Writes one file in its working directory, a MiB at a time, until the write fails.

Usage: ``huge_file_bot.py [BOUND_MIB]``; reports ``wrote <n> MiB, then <errno>`` (EFBIG when the
file-size limit stops it: Python ignores SIGXFSZ, so the write fails instead of killing it) or
``wrote <BOUND> MiB`` at its own safety bound (default 512). The file is deleted either way.
"""

from __future__ import annotations

import os
import sys

from kingmaker.sample_bots.hostile.common import errno_name, report

CHUNK = b"x" * 1024**2


def main(bound_mib: int) -> None:
    written = 0
    try:
        with open("huge.bin", "wb", buffering=0) as handle:
            while written < bound_mib:
                handle.write(CHUNK)
                written += 1
    except OSError as error:
        report(f"wrote {written} MiB, then {errno_name(error)}")
        return
    finally:
        os.unlink("huge.bin")
    report(f"wrote {written} MiB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 512)
