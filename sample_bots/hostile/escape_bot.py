"""Starts a child in a session of its own (out of the bot's process group) and leaves it behind.

Usage: ``escape_bot.py MARKER``: the child sleeps for two minutes with MARKER on its command
line, so a test can look for it after the bot was stopped. Then the bot itself sleeps too.
"""

from __future__ import annotations

import os
import sys
import time

from kingmaker.sample_bots.hostile.common import report

SLEEPER = "import time; time.sleep(120)"


def main(marker: str) -> None:
    if os.fork() == 0:
        os.setsid()
        os.execv(sys.executable, [sys.executable, "-c", SLEEPER, marker])
    report("child started in its own session")
    time.sleep(120)


if __name__ == "__main__":
    main(sys.argv[1])
