"""Tries to read files that are not its own: another bot's working directory, the server's files.

Usage: ``read_files_bot.py PATH...``; reports ``<path>: read <n> bytes`` or ``<path>: <errno>``
for each path.
"""

from __future__ import annotations

import sys

from kingmaker.sample_bots.hostile.common import errno_name, report


def main(paths: list[str]) -> None:
    for path in paths:
        try:
            with open(path, "rb") as handle:
                report(f"{path}: read {len(handle.read())} bytes")
        except OSError as error:
            report(f"{path}: {errno_name(error)}")


if __name__ == "__main__":
    main(sys.argv[1:])
