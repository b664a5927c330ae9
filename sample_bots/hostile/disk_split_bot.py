"""Fills its folder with many files, each below the file-size limit, until a write fails.

Usage: ``disk_split_bot.py FILE_MIB [BOUND_MIB]``; reports ``wrote <n> files, <m> MiB, then
<errno>`` (ENOSPC when its folder's quota is full) or ``wrote <n> files, <BOUND> MiB`` at its
own safety bound (default 1024). The files are deleted either way.
"""

from __future__ import annotations

import os
import sys

from kingmaker.sample_bots.hostile.common import errno_name, report

CHUNK = b"x" * 1024**2


def main(file_mib: int, bound_mib: int) -> None:
    written, names = 0, list[str]()
    try:
        while written < bound_mib:
            name = f"part-{len(names)}.bin"
            names.append(name)
            with open(name, "wb", buffering=0) as handle:
                for _ in range(file_mib):
                    handle.write(CHUNK)
                    written += 1
    except OSError as error:
        report(f"wrote {len(names)} files, {written} MiB, then {errno_name(error)}")
        return
    finally:
        for name in names:
            if os.path.exists(name):
                os.unlink(name)
    report(f"wrote {len(names)} files, {written} MiB")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 1024)
