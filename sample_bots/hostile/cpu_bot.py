"""Burns CPU in a loop.

Reports nothing when the CPU-time limit kills it (SIGXCPU), or ``burned <n> s of CPU`` at its
own safety bound (default 30 s of CPU time).
"""

from __future__ import annotations

import sys
import time

from kingmaker.sample_bots.hostile.common import report


def main(bound_seconds: float) -> None:
    report("burning CPU")
    while time.process_time() < bound_seconds:
        sum(range(10_000))
    report(f"burned {bound_seconds:g} s of CPU")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 30.0)
